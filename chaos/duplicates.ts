/**
 * Where the spans stored twice come from: each duplicated span id is looked up in the soak's topic (every offset
 * that holds it) and against the ranges the ingest recorded (ingest_batches), and sorted by cause — a request Kafka
 * holds twice whose second copy was not left out, one message stored by two differently cut ranges (two members
 * or two plans over the same offsets), or one message in one recorded range (the same range stored twice).
 */
import { readFileSync } from 'node:fs';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import type { KafkaClient } from '../platform/kafka/index.ts';
import { findIn, type KafkaPlace } from './topic-readback.ts';

const RANGES_SQL = readFileSync(new URL('./sql/recorded_ranges.sql', import.meta.url), 'utf8');

export interface RecordedRange {
  partition: number;
  first: number;
  last: number;
  /** 0 intent, 1 stored (ingest/batch-log.ts). */
  state: number;
  recordedAt: string;
}

export interface DuplicateOrigin {
  spanId: string;
  /** Every offset of the soak's topic that holds the span. */
  at: KafkaPlace[];
  /** The distinct recorded ranges (first-last) covering those offsets, each with its records. */
  ranges: RecordedRange[][];
}

export interface DuplicatesReport {
  /** In Kafka at two offsets or more: a re-sent request whose second copy was stored too. */
  twiceInKafka: DuplicateOrigin[];
  /** At one offset, inside two or more different recorded ranges: the same message stored by two batches. */
  overlappingRanges: DuplicateOrigin[];
  /** At one offset, inside one recorded range (or none): the same range stored twice. */
  oneRange: DuplicateOrigin[];
  /** Not found in the topic at all. */
  notInKafka: string[];
}

/** Sorts the duplicated ids by cause (`found`: span id -> its places in the topic; `ranges`: every record). */
export function classifyDuplicates(
  duplicated: readonly string[],
  found: ReadonlyMap<string, readonly KafkaPlace[]>,
  ranges: readonly RecordedRange[],
): DuplicatesReport {
  const r: DuplicatesReport = { twiceInKafka: [], overlappingRanges: [], oneRange: [], notInKafka: [] };
  for (const spanId of duplicated) {
    const at = [...(found.get(spanId) ?? [])];
    if (at.length === 0) {
      r.notInKafka.push(spanId);
      continue;
    }
    const byRange = new Map<string, RecordedRange[]>();
    for (const place of at) {
      const offset = Number(place.offset);
      for (const range of ranges) {
        if (range.partition !== place.partition || range.first > offset || range.last < offset) continue;
        const key = `${range.partition}:${range.first}-${range.last}`;
        byRange.set(key, [...(byRange.get(key) ?? []), range]);
      }
    }
    const origin = { spanId, at, ranges: [...byRange.values()] };
    if (at.length > 1) r.twiceInKafka.push(origin);
    else if (byRange.size > 1) r.overlappingRanges.push(origin);
    else r.oneRange.push(origin);
  }
  return r;
}

/** Reads the topic and the batch log back for the duplicated span ids. */
export async function whereDuplicated(
  kafka: KafkaClient,
  ch: ClickHouseClient,
  o: { database: string; topic: string; duplicated: readonly string[]; timeoutMs?: number },
): Promise<DuplicatesReport> {
  const [found, rows] = await Promise.all([
    findIn(kafka, [o.topic], new Set(o.duplicated), o.timeoutMs === undefined ? {} : { timeoutMs: o.timeoutMs }),
    ch
      .query({ query: RANGES_SQL, query_params: { database: o.database, topic: o.topic }, format: 'JSONEachRow' })
      .then((rs) =>
        rs.json<{
          partition: number;
          first_offset: string | number;
          last_offset: string | number;
          state: number;
          recorded_at: string;
        }>(),
      ),
  ]);
  const ranges = rows.map((x) => ({
    partition: Number(x.partition),
    first: Number(x.first_offset),
    last: Number(x.last_offset),
    state: Number(x.state),
    recordedAt: x.recorded_at,
  }));
  return classifyDuplicates(o.duplicated, found, ranges);
}

const placeText = (p: KafkaPlace) => `[${p.partition}]@${p.offset}`;
const rangeText = (records: readonly RecordedRange[]) => {
  const r = records[0]!;
  const marks = records.map((x) => `${x.state === 1 ? 'stored' : 'intent'} ${x.recordedAt.slice(11)}`).join(', ');
  return `${r.first}-${r.last} (${marks})`;
};

/** The report's lines: counts per cause, and the first few of each with their offsets and ranges. */
export function formatDuplicates(r: DuplicatesReport): string[] {
  const examples = (xs: DuplicateOrigin[]) =>
    xs
      .slice(0, 3)
      .map(
        (x) => `      ${x.spanId} at ${x.at.map(placeText).join(' ')}: ranges ${x.ranges.map(rangeText).join('; ')}`,
      );
  return [
    `  where the duplicates are:   ${r.twiceInKafka.length} in Kafka twice (a re-send not left out)`,
    ...examples(r.twiceInKafka),
    `                              ${r.overlappingRanges.length} at one offset, stored by two different ranges`,
    ...examples(r.overlappingRanges),
    `                              ${r.oneRange.length} at one offset, in one recorded range`,
    ...examples(r.oneRange),
    ...(r.notInKafka.length ? [`                              ${r.notInKafka.length} in no topic`] : []),
  ];
}
