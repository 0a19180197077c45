/**
 * The ClickHouse writer: inserts the rows of one batch into tool_calls, tool_call_warnings and spans, each with
 * its own `insert_deduplication_token` (`<token>:<table>`), and resolves only once ClickHouse acknowledged every
 * insert. Re-running a write with the same token and the same rows stores nothing twice (the tables keep a
 * non-replicated deduplication window; Replicated tables deduplicate natively).
 */
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { DigestRecorder, DigestSource } from '../audit/recorder.ts';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { encodeJsonCompactEachRow } from './encode.ts';
import type { IngestMetrics } from './metrics.ts';
import { encodeNative, type NativeType } from './native.ts';
import {
  type Rows,
  SPAN_COLUMNS,
  SPAN_NATIVE,
  TOOL_CALL_COLUMNS,
  TOOL_CALL_NATIVE,
  WARNING_COLUMNS,
  WARNING_NATIVE,
} from './rows.ts';
import type { EncodedRows } from './wire-columns.ts';

export const TABLES = { toolCalls: 'tool_calls', warnings: 'tool_call_warnings', spans: 'spans' } as const;

export interface WriteOptions {
  /** Same token + same rows = stored once. Omit only for data that may be duplicated on retry. */
  dedupToken?: string;
  /**
   * What the digest worker may hash instead of cloning `rows` (the Kafka messages they were flattened from); it
   * must yield exactly `rows`. Without it the worker gets the rows.
   */
  digestSource?: DigestSource;
}

export interface WriteResult {
  /** Rows sent, per table (deduplicated re-sends count here too: ClickHouse does not report them). */
  rows: { toolCalls: number; warnings: number; spans: number };
  insertMs: number;
}

export type WireFormat = 'native' | 'json';

export interface RowWriter {
  writeRows(rows: Rows, options?: WriteOptions): Promise<WriteResult>;
  /**
   * Inserts Native blocks already encoded (ingest/wire-columns.ts), with the same tokens and settings as
   * `writeRows`. Absent when the writer needs row objects (digests, JSON format): the caller then passes rows.
   */
  writeEncoded?(blocks: EncodedRows, options?: Pick<WriteOptions, 'dedupToken'>): Promise<WriteResult>;
}

export interface ClickHouseWriterOptions {
  database: string;
  metrics?: IngestMetrics;
  now?: () => number;
  /**
   * Insert encoding: `native` (default; ClickHouse parses it 3-5x faster) or `json` (JSONCompactEachRow, readable
   * in a packet capture; the benchmark's comparison).
   */
  format?: WireFormat;
  /** Tamper evidence (audit/README.md): per-tenant, per-hour digests of the rows stored, chained. */
  digests?: DigestRecorder;
}

/** Settings every batch insert runs with: synchronous, deduplicated, one block per partition. */
function insertSettings(token: string | undefined): Record<string, string | number> {
  return {
    async_insert: 0,
    insert_deduplicate: 1,
    // Errors must arrive as an HTTP error, never after a 200 header already went out.
    wait_end_of_query: 1,
    // Block boundaries must not depend on parsing threads, or a re-sent batch could hash/tokenize differently.
    input_format_parallel_parsing: 0,
    max_insert_block_size: 10_000_000,
    min_insert_block_size_rows: 0,
    min_insert_block_size_bytes: 0,
    ...(token === undefined ? {} : { insert_deduplication_token: token }),
  };
}

async function insertBody(
  ch: ClickHouseClient,
  table: string,
  columns: readonly string[],
  body: Buffer,
  token: string | undefined,
  format: WireFormat,
): Promise<void> {
  const result = await ch.exec({
    query: `INSERT INTO ${table} (${columns.map((c) => `\`${c}\``).join(', ')}) FORMAT ${format === 'native' ? 'Native' : 'JSONCompactEachRow'}`,
    values: Readable.from([body], { objectMode: false }),
    clickhouse_settings: insertSettings(token),
  });
  // The response body is empty for an INSERT; draining it releases the socket. `finished` also resolves for a
  // stream that already ended (listening for 'end' would wait forever then).
  await finished(result.stream.resume());
}

export function createClickHouseWriter(ch: ClickHouseClient, options: ClickHouseWriterOptions): RowWriter {
  const db = options.database;
  const now = options.now ?? Date.now;
  const format = options.format ?? 'native';
  const observe = (result: WriteResult) => {
    const m = options.metrics;
    if (!m) return;
    m.rowsWritten.inc({ table: TABLES.toolCalls }, result.rows.toolCalls);
    m.rowsWritten.inc({ table: TABLES.warnings }, result.rows.warnings);
    m.rowsWritten.inc({ table: TABLES.spans }, result.rows.spans);
    m.insertSeconds.observe(result.insertMs / 1000);
    m.batchRows.observe(result.rows.toolCalls + result.rows.warnings + result.rows.spans);
  };
  const writeEncoded: RowWriter['writeEncoded'] = async (blocks, { dedupToken } = {}) => {
    const started = now();
    const jobs: Promise<void>[] = [];
    const insert = (name: string, block: { rows: number; body: Buffer }, columns: readonly string[]) => {
      if (block.rows === 0) return;
      const token = dedupToken === undefined ? undefined : `${dedupToken}:${name}`;
      jobs.push(insertBody(ch, `${db}.${name}`, columns, block.body, token, 'native'));
    };
    insert(TABLES.toolCalls, blocks.toolCalls, TOOL_CALL_COLUMNS);
    insert(TABLES.warnings, blocks.warnings, WARNING_COLUMNS);
    insert(TABLES.spans, blocks.spans, SPAN_COLUMNS);
    const settled = await Promise.allSettled(jobs);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    const result: WriteResult = {
      rows: { toolCalls: blocks.toolCalls.rows, warnings: blocks.warnings.rows, spans: blocks.spans.rows },
      insertMs: now() - started,
    };
    observe(result);
    return result;
  };
  return {
    // Digests hash row objects, and JSON is encoded from them: only a plain Native writer takes encoded blocks.
    ...(format === 'native' && !options.digests ? { writeEncoded } : {}),
    async writeRows(rows, { dedupToken, digestSource } = {}) {
      const started = now();
      // The digest worker hashes while we encode and ClickHouse inserts; recorded below, only after the ack.
      const prepared = options.digests?.prepare?.(digestSource ?? { kind: 'rows', rows });
      const jobs: Promise<void>[] = [];
      const table = (name: string) => `${db}.${name}`;
      const token = (name: string) => (dedupToken === undefined ? undefined : `${dedupToken}:${name}`);
      // One insert per non-empty table, in the configured wire format, with the table's derived token.
      const insert = <Row extends object>(
        name: string,
        batch: readonly Row[],
        columns: readonly (keyof Row & string)[],
        native: readonly (readonly [keyof Row & string, NativeType])[],
      ) => {
        if (batch.length === 0) return;
        const body = format === 'native' ? encodeNative(batch, native) : encodeJsonCompactEachRow(batch, columns);
        jobs.push(insertBody(ch, table(name), columns, body, token(name), format));
      };
      insert(TABLES.toolCalls, rows.toolCalls, TOOL_CALL_COLUMNS, TOOL_CALL_NATIVE);
      insert(TABLES.warnings, rows.warnings, WARNING_COLUMNS, WARNING_NATIVE);
      insert(TABLES.spans, rows.spans, SPAN_COLUMNS, SPAN_NATIVE);
      // All three settle before we report: a failed table is retried with the same token, the stored ones dedup.
      const settled = await Promise.allSettled(jobs);
      const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
      if (failed) throw failed.reason;
      await options.digests?.record(rows, { batchId: dedupToken, prepared });
      const result: WriteResult = {
        rows: { toolCalls: rows.toolCalls.length, warnings: rows.warnings.length, spans: rows.spans.length },
        insertMs: now() - started,
      };
      observe(result);
      return result;
    },
  };
}
