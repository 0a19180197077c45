/**
 * What the collector refused to keep, per tenant and reason, over the last hour: a rejected span never reaches
 * Kafka, so this window (and the Prometheus counters, for the long term) is the only place it can be asked about.
 * Minute buckets bound the memory to tenants x reasons x 60; a restart forgets the window.
 */
import type { PreparedSummary } from './prepare.ts';

export const REJECTION_WINDOW_MS = 60 * 60_000;
const BUCKET_MS = 60_000;

export interface RejectionReport {
  tenant: string;
  reason: string;
  /** Spans rejected for this reason since the start of the window asked for. */
  spans: number;
  /** The latest example: its span id ('' when the problem was a resource's) and the message the sender got. */
  example_span_id: string;
  message: string;
  last_seen: string;
}

interface Entry {
  tenant: string;
  reason: string;
  /** [bucket start ms, spans], oldest first. */
  buckets: [number, number][];
  example: { spanId: string; message: string; at: number };
}

export class RejectionWindow {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly now: () => number = Date.now) {}

  record(tenant: string, summary: Pick<PreparedSummary, 'samples' | 'byReason'>): void {
    const at = this.now();
    const bucket = at - (at % BUCKET_MS);
    for (const [reason, spans] of summary.byReason) {
      const key = `${tenant}\0${reason}`;
      const sample = summary.samples.find((s) => s.outcome === 'rejected' && s.reason === reason);
      let entry = this.entries.get(key);
      if (!entry) {
        entry = { tenant, reason, buckets: [], example: { spanId: '', message: '', at } };
        this.entries.set(key, entry);
      }
      const last = entry.buckets.at(-1);
      if (last && last[0] === bucket) last[1] += spans;
      else entry.buckets.push([bucket, spans]);
      if (sample) entry.example = { spanId: sample.spanId, message: sample.message, at };
      else entry.example.at = at;
    }
    this.prune(at);
  }

  /** Per tenant (all when `tenant` is undefined) and reason, what was rejected at or after `sinceMs`. */
  report(tenant: string | undefined, sinceMs: number): RejectionReport[] {
    this.prune(this.now());
    const out: RejectionReport[] = [];
    for (const e of this.entries.values()) {
      if (tenant !== undefined && e.tenant !== tenant) continue;
      // A bucket counts when any of its minute is inside the range: the answer errs on the side of telling.
      const spans = e.buckets.filter(([start]) => start + BUCKET_MS > sinceMs).reduce((n, [, s]) => n + s, 0);
      if (spans === 0) continue;
      out.push({
        tenant: e.tenant,
        reason: e.reason,
        spans,
        example_span_id: e.example.spanId,
        message: e.example.message,
        last_seen: new Date(e.example.at).toISOString(),
      });
    }
    return out.sort((a, b) => a.tenant.localeCompare(b.tenant) || b.spans - a.spans);
  }

  private prune(at: number): void {
    for (const [key, e] of this.entries) {
      while (e.buckets.length > 0 && (e.buckets[0]?.[0] ?? 0) + BUCKET_MS <= at - REJECTION_WINDOW_MS)
        e.buckets.shift();
      if (e.buckets.length === 0) this.entries.delete(key);
    }
  }
}
