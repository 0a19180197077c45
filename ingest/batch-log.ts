/**
 * The batch log (`ingest_batches`, migration 0004): the offset range of each batch, recorded before its rows are
 * inserted and marked stored after; see docs/exactly-once.md.
 */
import { readFileSync } from 'node:fs';
import type { ClickHouseClient } from '../platform/clickhouse.ts';

const LOAD_SQL = readFileSync(new URL('./sql/load_batch_ranges.sql', import.meta.url), 'utf8');
const RECENT_IDS_SQL = readFileSync(new URL('./sql/load_recent_message_ids.sql', import.meta.url), 'utf8');
const ID_HEX = 32;

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
  /** Offsets of the range's messages left out as re-sends of earlier ones (ingest/dedup-window.ts); absent: none. */
  skipped?: number[];
}

export interface BatchLogEntry {
  partition: number;
  range: BatchRange;
  messages: number;
  state: typeof BATCH_INTENT | typeof BATCH_STORED;
  /**
   * The ids of the range's messages in offset order, hex, concatenated (when re-sends are looked for; recorded in
   * hex so that SQL can read them).
   */
  messageIds?: string;
}

/** A message id remembered from a recorded range. */
export interface RecordedMessageId {
  offset: number;
  /** As `messageIdOf` gives it: 16 latin1 characters. */
  id: string;
}

export interface BatchLog {
  /** Ranges of `partition` whose last offset is >= `from`, by first offset. */
  load(partition: number, from: number): Promise<BatchRange[]>;
  /** Resolves once ClickHouse acknowledged every entry. */
  record(entries: BatchLogEntry[]): Promise<void>;
  /**
   * The message ids recorded for `partition` at offsets in [before - window, before), in offset order: what a
   * restarted or newly assigned consumer needs to recognise re-sends of messages stored before it started.
   */
  recentMessageIds(partition: number, before: number, window: number): Promise<RecordedMessageId[]>;
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
        range_skipped: (string | number)[];
      }>();
      return rows.map((r) => {
        const range: BatchRange = {
          first: Number(r.first_offset),
          last: Number(r.range_last),
          firstTimestamp: Number(r.range_first_timestamp),
          firstHash: r.range_first_hash,
          stored: Number(r.range_state) === BATCH_STORED,
        };
        if (r.range_skipped.length > 0) range.skipped = r.range_skipped.map(Number);
        return range;
      });
    },
    async recentMessageIds(partition, before, window) {
      const rs = await ch.query({
        query: RECENT_IDS_SQL,
        query_params: { database, group, topic, partition, from: Math.max(0, before - window), before },
        format: 'JSONEachRow',
      });
      const ids: RecordedMessageId[] = [];
      // A range's ids are its messages' in offset order; the topic's offsets are contiguous (no transactions or
      // compaction), so the i-th id is at first + i.
      for (const r of await rs.json<{ first_offset: string | number; range_message_ids: string }>()) {
        const first = Number(r.first_offset);
        const hex = r.range_message_ids;
        for (let i = 0; (i + 1) * ID_HEX <= hex.length; i++) {
          const offset = first + i;
          if (offset >= before) break;
          if (offset >= before - window) {
            ids.push({ offset, id: Buffer.from(hex.slice(i * ID_HEX, (i + 1) * ID_HEX), 'hex').toString('latin1') });
          }
        }
      }
      return ids;
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
          message_ids: e.messageIds ?? '',
          skipped: e.range.skipped ?? [],
        })),
        clickhouse_settings: { async_insert: 0, wait_end_of_query: 1 },
      });
    },
  };
}
