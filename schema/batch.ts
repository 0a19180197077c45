/**
 * One batch of the written tables as the writer hands it on once stored: its rows per table, or the Native
 * blocks they were inserted as. The ingest produces it; the audit hashes it (through the ingest's hook).
 */
import type { Buffer } from 'node:buffer';

/** One table's part of a batch as the Native block inserted. */
export interface NativeBlock {
  rows: number;
  body: Buffer;
  /**
   * Where each part of each column lies in `body` (start and end of part p at 2p, 2p + 1; a column's parts as
   * Native lays them out), when its encoder knows them: the audit then finds the string columns without walking
   * their lengths, and its native walk checks each column ends there (audit/native-block.ts `columnsOf`).
   */
  parts?: readonly number[];
}

export interface BatchBlocks {
  toolCalls: NativeBlock;
  warnings: NativeBlock;
  spans: NativeBlock;
}

/** Row objects per table, keyed by column name (schema/rows.ts `Rows` fits). */
export interface BatchRows {
  toolCalls: readonly object[];
  warnings: readonly object[];
  spans: readonly object[];
}

export type StoredBatch = BatchRows | BatchBlocks;

/** What a batch's digests may be computed from ahead of the insert (the same rows either way). */
export type BatchSource = { kind: 'rows'; rows: BatchRows } | { kind: 'native'; blocks: BatchBlocks };

export interface RowCounts {
  toolCalls: number;
  warnings: number;
  spans: number;
}

export function isBlocks(stored: StoredBatch): stored is BatchBlocks {
  return !Array.isArray(stored.toolCalls);
}

export function countsOf(stored: StoredBatch): RowCounts {
  if (isBlocks(stored))
    return { toolCalls: stored.toolCalls.rows, warnings: stored.warnings.rows, spans: stored.spans.rows };
  return { toolCalls: stored.toolCalls.length, warnings: stored.warnings.length, spans: stored.spans.length };
}
