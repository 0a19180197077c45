/**
 * Why the collector refused: its own `tooltrail_collector_requests_throttled_total{status,reason}` read from
 * /metrics while the soak runs, summed across collector restarts (a restart starts its counters at 0 again), so the
 * report tells a tenant's share of the slots (`tenant_concurrency_limit`) from the whole collector's
 * (`concurrency_limit`) and from Kafka (`sink_unavailable`).
 */

const SERIES = 'tooltrail_collector_requests_throttled_total';
const LINE = /^tooltrail_collector_requests_throttled_total\{([^}]*)\}\s+(\S+)/;

/** `status/reason` -> count, from the Prometheus text of one scrape. */
export function parseThrottled(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(SERIES)) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels = new Map([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    const n = Number(m[2]);
    if (!Number.isFinite(n)) continue;
    const key = `${labels.get('status') ?? '?'}/${labels.get('reason') ?? '?'}`;
    out.set(key, (out.get(key) ?? 0) + n);
  }
  return out;
}

/** Counters summed over the collector's lives: a value lower than the last one seen means it restarted. */
export class RefusalTally {
  private readonly last = new Map<string, number>();
  private readonly before = new Map<string, number>();

  add(scrape: Map<string, number>): void {
    const restarted = [...this.last].some(([k, v]) => (scrape.get(k) ?? 0) < v);
    if (restarted) {
      for (const [k, v] of this.last) this.before.set(k, (this.before.get(k) ?? 0) + v);
      this.last.clear();
    }
    for (const [k, v] of scrape) this.last.set(k, v);
  }

  /** `status/reason` -> requests refused, sorted by count. */
  totals(): [string, number][] {
    const sum = new Map(this.before);
    for (const [k, v] of this.last) sum.set(k, (sum.get(k) ?? 0) + v);
    return [...sum].filter(([, v]) => v > 0).sort((a, b) => b[1] - a[1]);
  }
}

/** One scrape of the collector's /metrics; undefined while it is down or restarting. */
export async function scrapeThrottled(metricsUrl: string): Promise<Map<string, number> | undefined> {
  try {
    const res = await fetch(metricsUrl, { signal: AbortSignal.timeout(3_000) });
    if (!res.ok) return undefined;
    return parseThrottled(await res.text());
  } catch {
    return undefined;
  }
}
