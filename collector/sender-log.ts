/**
 * Tells the operator what senders get wrong, since exporters (the Python one among them) ignore partial_success:
 * each rejection or flag reason is written once per minute per tenant, with an example span and its message, and
 * a count of the spans it stood for since the last line.
 */
import type { PreparedSummary } from './prepare.ts';

export const SENDER_LOG_EVERY_MS = 60_000;

export class SenderLog {
  /** tenant + reason -> when it was last written, and the spans seen since. */
  private readonly last = new Map<string, { at: number; since: number }>();

  constructor(
    private readonly write: (line: string) => void,
    private readonly everyMs = SENDER_LOG_EVERY_MS,
    private readonly now: () => number = Date.now,
  ) {}

  record(tenant: string, summary: Pick<PreparedSummary, 'samples' | 'byReason' | 'flagsByReason'>): void {
    for (const s of summary.samples) {
      const counts: readonly (readonly [string, number])[] =
        s.outcome === 'rejected' ? summary.byReason : summary.flagsByReason;
      const spans = counts.find(([reason]) => reason === s.reason)?.[1] ?? 1;
      const key = `${tenant}\0${s.reason}`;
      const t = this.now();
      const entry = this.last.get(key);
      if (entry && t - entry.at < this.everyMs) {
        entry.since += spans;
        continue;
      }
      const earlier = entry && entry.since > 0 ? ` (and ${entry.since} more since the last report)` : '';
      this.last.set(key, { at: t, since: 0 });
      this.write(
        `tooltrail collector: tenant ${tenant}: ${spans} span(s) ${s.outcome === 'rejected' ? 'rejected' : 'kept flagged'}, ${s.reason}${earlier}; e.g. span ${s.spanId || '(none)'}: ${s.message}`,
      );
    }
  }
}
