/**
 * The ClickHouse writer: inserts the rows of one batch into tool_calls, tool_call_warnings and spans, each with
 * its own `insert_deduplication_token` (`<token>:<table>`), and resolves only once ClickHouse acknowledged every
 * insert. Re-running a write with the same token and the same rows stores nothing twice (the tables keep a
 * non-replicated deduplication window; Replicated tables deduplicate natively).
 */
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { encodeNative, type NativeType } from '../platform/native/encode.ts';
import { countsOf } from '../schema/batch.ts';
import {
  type Rows,
  SPAN_COLUMNS,
  SPAN_NATIVE,
  TOOL_CALL_COLUMNS,
  TOOL_CALL_NATIVE,
  WARNING_COLUMNS,
  WARNING_NATIVE,
} from '../schema/rows.ts';
import type { BatchStoredHook } from './batch-stored.ts';
import type { EncodedRows } from './columns/arena.ts';
import type { IngestMetrics } from './metrics.ts';

export const TABLES = { toolCalls: 'tool_calls', warnings: 'tool_call_warnings', spans: 'spans' } as const;

export interface WriteOptions {
  /** Same token + same rows = stored once. Omit only for data that may be duplicated on retry. */
  dedupToken?: string;
}

export interface WriteResult {
  /** Rows sent, per table (deduplicated re-sends count here too: ClickHouse does not report them). */
  rows: { toolCalls: number; warnings: number; spans: number };
  insertMs: number;
}

export interface RowWriter {
  writeRows(rows: Rows, options?: WriteOptions): Promise<WriteResult>;
  /**
   * Inserts Native blocks already encoded (ingest/columns/), with the same tokens, settings and digests as
   * `writeRows`. Absent in a writer that takes row objects only (the unit tests' fakes): the caller then passes rows.
   */
  writeEncoded?(blocks: EncodedRows, options?: WriteOptions): Promise<WriteResult>;
}

export interface ClickHouseWriterOptions {
  database: string;
  metrics?: IngestMetrics;
  now?: () => number;
  /** Called once a batch is stored (the assembly wires the audit's digest recorder: audit/README.md). */
  batchStored?: BatchStoredHook;
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
): Promise<void> {
  const result = await ch.exec({
    query: `INSERT INTO ${table} (${columns.map((c) => `\`${c}\``).join(', ')}) FORMAT Native`,
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
  const observe = (result: WriteResult) => {
    const m = options.metrics;
    if (!m) return;
    m.rowsWritten.inc({ table: TABLES.toolCalls }, result.rows.toolCalls);
    m.rowsWritten.inc({ table: TABLES.warnings }, result.rows.warnings);
    m.rowsWritten.inc({ table: TABLES.spans }, result.rows.spans);
    m.insertSeconds.observe(result.insertMs / 1000);
    m.batchRows.observe(result.rows.toolCalls + result.rows.warnings + result.rows.spans);
  };
  /**
   * Inserts the block of each non-empty table, each with its derived token; once all three are acknowledged, records
   * the batch's digests (before the caller acknowledges the batch upstream). The digests hash the very blocks
   * inserted (audit/native-entries.ts), from either path.
   */
  const writeEncoded = async (blocks: EncodedRows, { dedupToken }: WriteOptions = {}): Promise<WriteResult> => {
    const started = now();
    // The hook may start on the blocks while ClickHouse inserts (the audit's digest worker does).
    const prepared = options.batchStored?.prepare?.({ kind: 'native', blocks });
    const jobs: Promise<void>[] = [];
    for (const [table, columns, block] of [
      [TABLES.toolCalls, TOOL_CALL_COLUMNS, blocks.toolCalls],
      [TABLES.warnings, WARNING_COLUMNS, blocks.warnings],
      [TABLES.spans, SPAN_COLUMNS, blocks.spans],
    ] as const) {
      if (block.rows === 0) continue;
      const token = dedupToken === undefined ? undefined : `${dedupToken}:${table}`;
      jobs.push(insertBody(ch, `${db}.${table}`, columns, block.body, token));
    }
    // All three settle before we report: a failed table is retried with the same token, the stored ones dedup.
    const settled = await Promise.allSettled(jobs);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) throw failed.reason;
    await options.batchStored?.record(blocks, { batchId: dedupToken, prepared });
    const result: WriteResult = { rows: countsOf(blocks), insertMs: now() - started };
    observe(result);
    return result;
  };
  return { writeEncoded, writeRows: (rows, o) => writeEncoded(encodeRows(rows), o) };
}

/** The Native blocks of rows (the row path's encoding; the column path builds the same bytes from the wire). */
export function encodeRows(rows: Rows): EncodedRows {
  const block = <Row extends object>(
    batch: readonly Row[],
    native: readonly (readonly [keyof Row & string, NativeType])[],
  ) => ({
    rows: batch.length,
    body: batch.length === 0 ? Buffer.alloc(0) : encodeNative(batch, native),
  });
  return {
    toolCalls: block(rows.toolCalls, TOOL_CALL_NATIVE),
    warnings: block(rows.warnings, WARNING_NATIVE),
    spans: block(rows.spans, SPAN_NATIVE),
  };
}
