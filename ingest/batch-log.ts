/**
 * The batch log (`ingest_batches`, migration 0004): the offset range of each batch, recorded before its rows are
 * inserted and marked stored after; see docs/exactly-once.md.
 */
import { readFileSync } from 'node:fs';
import type { ClickHouseClient } from '../platform/clickhouse.ts';

const LOAD_SQL = readFileSync(new URL('./sql/load-batch-ranges.sql', import.meta.url), 'utf8');

export const BATCH_INTENT = 0;
export const BATCH_STORED = 1;

export interface BatchRange {
  first: number;
  last: number;
  /** Kafka timestamp (ms) and value hash of the message at `first`, to recognise the same log. */
  firstTimestamp: number;
  firstHash: string;
  /** The rows of this range are known to be acknowledged by ClickHouse. */
  stored: boolean;
}

export interface BatchLogEntry {
  partition: number;
  range: BatchRange;
  messages: number;
  state: typeof BATCH_INTENT | typeof BATCH_STORED;
}

export interface BatchLog {
  /** Ranges of `partition` whose last offset is >= `from`, by first offset. */
  load(partition: number, from: number): Promise<BatchRange[]>;
  /** Resolves once ClickHouse acknowledged every entry. */
  record(entries: BatchLogEntry[]): Promise<void>;
}

export function createBatchLog(ch: ClickHouseClient, database: string, group: string, topic: string): BatchLog {
  return {
    async load(partition, from) {
      const rs = await ch.query({
        query: LOAD_SQL,
        query_params: { database, group, topic, partition, from },
        format: 'JSONEachRow',
      });
      const rows = await rs.json<{
        first_offset: string | number;
        range_last: string | number;
        range_first_timestamp: string | number;
        range_first_hash: string;
        range_state: number;
      }>();
      return rows.map((r) => ({
        first: Number(r.first_offset),
        last: Number(r.range_last),
        firstTimestamp: Number(r.range_first_timestamp),
        firstHash: r.range_first_hash,
        stored: Number(r.range_state) === BATCH_STORED,
      }));
    },
    async record(entries) {
      if (entries.length === 0) return;
      await ch.insert({
        table: `${database}.ingest_batches`,
        format: 'JSONEachRow',
        values: entries.map((e) => ({
          consumer_group: group,
          topic,
          partition: e.partition,
          first_offset: e.range.first,
          last_offset: e.range.last,
          first_timestamp: e.range.firstTimestamp,
          first_hash: e.range.firstHash,
          state: e.state,
          messages: e.messages,
        })),
        clickhouse_settings: { async_insert: 0, wait_end_of_query: 1 },
      });
    },
  };
}
