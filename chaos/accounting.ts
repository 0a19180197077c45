/**
 * What reached ClickHouse: a poller that samples when each acknowledged request became visible (ack -> row
 * visible), and the final count of the recorded span ids against the raw rows (tool_calls is a MergeTree: no
 * FINAL, so a duplicate shows up as a second row).
 */
import { type ClickHouseClient, pingClickHouse } from '../platform/clickhouse.ts';
import type { PendingRequest } from './load.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class VisibilityPoller {
  /** Request seed -> performance.now() when a poll first saw its rows. */
  private readonly seenAt = new Map<number, number>();
  private running = false;
  private loop: Promise<void> | undefined;
  failedPolls = 0;

  constructor(
    private readonly ch: ClickHouseClient,
    /** Pinged first: no query (and no client error log) while ClickHouse is down. */
    private readonly url: string,
    private readonly database: string,
    private readonly intervalMs = 500,
  ) {}

  start(): void {
    this.running = true;
    // Watermark on ingested_at: only a successful poll moves it, so rows inserted while ClickHouse was unreachable
    // to us are still found afterwards. The margin covers inserts that started before the previous poll.
    let since = Date.now() - 60_000;
    this.loop = (async () => {
      while (this.running) {
        const pollStart = Date.now();
        try {
          if (!(await pingClickHouse(this.url, 1_000))) throw new Error('ClickHouse down');
          const rs = await this.ch.query({
            query: `SELECT DISTINCT session_id FROM ${this.database}.tool_calls
                    WHERE ingested_at >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')`,
            query_params: { since: since - 15_000 },
            format: 'JSONCompactEachRow',
          });
          const now = performance.now();
          for (const [session] of await rs.json<[string]>()) {
            const seed = Number(session.slice('sess-'.length));
            if (!this.seenAt.has(seed)) this.seenAt.set(seed, now);
          }
          since = pollStart;
        } catch {
          this.failedPolls++;
        }
        await sleep(this.intervalMs);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }

  /** Longest ack -> visible delay over the acknowledged requests the poller saw, and how many it saw. */
  delays(requests: PendingRequest[]): { maxMs: number; p99Ms: number; sampled: number } {
    const ds: number[] = [];
    for (const r of requests) {
      const seen = this.seenAt.get(r.seed);
      if (r.ackedAt !== undefined && seen !== undefined) ds.push(Math.max(0, seen - r.ackedAt));
    }
    ds.sort((a, b) => a - b);
    return {
      maxMs: ds.at(-1) ?? 0,
      p99Ms: ds[Math.min(ds.length - 1, Math.floor(ds.length * 0.99))] ?? 0,
      sampled: ds.length,
    };
  }
}

export interface StoredCounts {
  /** Distinct acknowledged span ids present. */
  stored: number;
  /** Acknowledged but absent: must be 0. */
  lost: number;
  /** The first few, for the report. */
  lostSpanIds: string[];
  /** Every one, for the read-back of the topic. */
  lostAll: string[];
  /** Span ids with more than one raw row: must be 0. */
  duplicated: number;
  duplicateRows: number;
  duplicatedSpanIds: string[];
  /** Every one, for the read-back of where they come from. */
  duplicatedAll: string[];
  /** Present although never acknowledged (a refused or timed-out attempt that got through: allowed). */
  storedUnacknowledged: number;
  /** Rows whose span id the load never sent (must be 0). */
  unknown: number;
  totalRows: number;
  /** Messages the ingest left out as re-sends of stored ones (Kafka held a request twice). */
  resentLeftOut: number;
}

/** Counts every recorded span id against the raw rows of tool_calls. */
export async function countStored(
  ch: ClickHouseClient,
  database: string,
  requests: PendingRequest[],
): Promise<StoredCounts> {
  // Sorted on both sides and walked once: an hour at 5,000 spans/s holds ~18M span ids, past what a Map or a Set
  // can hold (2^24 entries). ClickHouse sorts them in 16 slices by the id's first hex digit: one GROUP BY ... ORDER
  // BY over all 18M dropped the connection (the hour of 2026-12-02 18:52); the slices, in order, are one sorted stream.
  async function* stored(): AsyncGenerator<[string, number]> {
    for (const digit of '0123456789abcdef') {
      const rs = await ch.query({
        query: `SELECT span_id, count() AS n FROM ${database}.tool_calls
                WHERE startsWith(span_id, {digit:String}) GROUP BY span_id ORDER BY span_id`,
        query_params: { digit },
        format: 'JSONCompactEachRow',
      });
      for await (const chunk of rs.stream<[string, string | number]>())
        for (const row of chunk) {
          const [id, n] = row.json();
          yield [id, Number(n)];
        }
    }
  }
  const acked: string[] = [];
  const unacked: string[] = [];
  for (const r of requests) for (const id of r.spanIds) (r.ackedAt === undefined ? unacked : acked).push(id);
  return {
    ...(await compareSortedIds(stored(), acked, unacked)),
    resentLeftOut: await resentLeftOut(ch, database),
  };
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The counts of StoredCounts from the stored (span id, rows) pairs in ascending order of the id's bytes and the
 * span ids sent, acknowledged or not (sorted here, in place). Span ids are lowercase hex: their code-unit order is
 * ClickHouse's byte order.
 */
export async function compareSortedIds(
  stored: AsyncIterable<[string, number]>,
  acked: string[],
  unacked: string[],
): Promise<Omit<StoredCounts, 'resentLeftOut'>> {
  acked.sort(byCodeUnit);
  unacked.sort(byCodeUnit);
  const c: Omit<StoredCounts, 'resentLeftOut'> = {
    stored: 0,
    lost: 0,
    lostSpanIds: [],
    lostAll: [],
    duplicated: 0,
    duplicateRows: 0,
    duplicatedSpanIds: [],
    duplicatedAll: [],
    storedUnacknowledged: 0,
    unknown: 0,
    totalRows: 0,
  };
  const lose = (id: string) => {
    c.lost++;
    c.lostAll.push(id);
    if (c.lostSpanIds.length < 10) c.lostSpanIds.push(id);
  };
  let i = 0;
  let j = 0;
  let previous: string | undefined;
  for await (const [id, n] of stored) {
    if (previous !== undefined && id <= previous) throw new Error(`stored span ids out of order: ${previous}, ${id}`);
    previous = id;
    c.totalRows += n;
    while (i < acked.length && (acked[i] as string) < id) lose(acked[i++] as string);
    while (j < unacked.length && (unacked[j] as string) < id) j++;
    let known = true;
    if (acked[i] === id) {
      c.stored++;
      i++;
    } else if (unacked[j] === id) {
      c.storedUnacknowledged++;
      j++;
    } else {
      known = false;
      c.unknown++;
    }
    if (known && n > 1) {
      c.duplicated++;
      c.duplicateRows += n - 1;
      c.duplicatedAll.push(id);
      if (c.duplicatedSpanIds.length < 10) c.duplicatedSpanIds.push(id);
    }
  }
  while (i < acked.length) lose(acked[i++] as string);
  return c;
}

/** Offsets the ingest's batch log says it left out as re-sends. */
async function resentLeftOut(ch: ClickHouseClient, database: string): Promise<number> {
  const rs = await ch.query({
    query: `SELECT sum(length(skipped)) AS n FROM ${database}.ingest_batches FINAL`,
    format: 'JSONEachRow',
  });
  return Number((await rs.json<{ n: string | number }>())[0]?.n ?? 0);
}

/** Polls until the stored count stops growing for `quietMs` (the ingest drained), or the deadline passes. */
export async function waitForDrain(
  ch: ClickHouseClient,
  url: string,
  database: string,
  expectedAtLeast: number,
  quietMs: number,
  timeoutMs: number,
): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let last = -1;
  let stableSince = Date.now();
  while (Date.now() < deadline) {
    let n = last;
    try {
      if (!(await pingClickHouse(url, 1_000))) throw new Error('ClickHouse down');
      const rs = await ch.query({
        query: `SELECT count() AS n FROM ${database}.tool_calls`,
        format: 'JSONEachRow',
      });
      n = Number((await rs.json<{ n: string }>())[0]?.n ?? 0);
    } catch {}
    if (n !== last) {
      last = n;
      stableSince = Date.now();
    } else if (n >= expectedAtLeast && Date.now() - stableSince >= quietMs) return n;
    await sleep(500);
  }
  return last;
}
