/**
 * Where pages go when no Alertmanager is configured or found: one JSON line per alert in a local file, and one
 * human line on the console, so `tooltrail up` on a laptop still shows who would have been paged.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AlertSink, PostableAlert } from '../../alerts/index.ts';

export function pageFileSink(file: string, print: (line: string) => void): AlertSink {
  mkdirSync(dirname(file), { recursive: true });
  // The evaluator re-posts firing alerts to keep them alive; the console shows each page and each resolution once.
  const printed = new Set<string>();
  return {
    async post(alerts: readonly PostableAlert[]) {
      if (alerts.length === 0) return;
      appendFileSync(file, alerts.map((a) => `${JSON.stringify({ at: new Date().toISOString(), ...a })}\n`).join(''));
      for (const a of alerts) {
        const resolved = Date.parse(a.endsAt) <= Date.now();
        const key = `${a.labels.fingerprint ?? JSON.stringify(a.labels)}:${resolved}`;
        if (printed.has(key)) continue;
        printed.add(key);
        const who = a.labels.owner ? `owner ${a.labels.owner}` : 'no owner: escalation';
        print(
          `${resolved ? 'RESOLVED' : 'PAGE'} [${a.labels.severity ?? '?'}] ${a.labels.alertname} -> ${who}: ${a.annotations.summary ?? ''}`,
        );
      }
    },
  };
}
