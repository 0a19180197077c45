/**
 * Where pages go when no Alertmanager is configured or found: one JSON line per page event (an alert firing, or
 * resolved) in a local file, and one human line on the console, so `tooltrail up` on a laptop still shows who
 * would have been paged.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AlertSink, PostableAlert } from '../../alerts/index.ts';

export function pageFileSink(file: string, print: (line: string) => void, now: () => number = Date.now): AlertSink {
  mkdirSync(dirname(file), { recursive: true });
  // The evaluator re-posts firing alerts on every evaluation to keep them alive (as Alertmanager wants): only a
  // change of state (first firing, resolved, firing again) is an event. Alert -> whether it was last resolved.
  const last = new Map<string, boolean>();
  return {
    async post(alerts: readonly PostableAlert[]) {
      const events: PostableAlert[] = [];
      for (const a of alerts) {
        const resolved = Date.parse(a.endsAt) <= now();
        const key = a.labels.fingerprint ?? JSON.stringify(a.labels);
        if (last.get(key) === resolved) continue;
        last.set(key, resolved);
        events.push(a);
        const who = a.labels.owner ? `owner ${a.labels.owner}` : 'no owner: escalation';
        print(
          `${resolved ? 'RESOLVED' : 'PAGE'} [${a.labels.severity ?? '?'}] ${a.labels.alertname} -> ${who}: ${a.annotations.summary ?? ''}`,
        );
      }
      if (events.length === 0) return;
      const at = new Date(now()).toISOString();
      appendFileSync(file, events.map((a) => `${JSON.stringify({ at, ...a })}\n`).join(''));
    },
  };
}
