/**
 * What the digest worker computes from, and the computation itself (shared by the worker and the tests).
 *
 * `rows`: the batch's rows, structured-cloned to the worker. `otlp`: the Kafka message values the batch's rows were
 * flattened from, copied into one transferable buffer (a memcpy on the main thread instead of cloning every row);
 * the worker decodes and flattens them again exactly as the consumer does (ingest/consumer.ts `Entry.decode`:
 * undecodable messages carry no rows) and hashes the result.
 */
import { Buffer } from 'node:buffer';
import { emptyFlattenResult, type FlattenOptions, flattenInto } from '../ingest/flatten.ts';
import { decodeExportTraceServiceRequestFast } from '../platform/otlp/index.ts';
import { digestEntries, type EntriesByTenant, type StoredRows } from './entries.ts';

export type DigestSource =
  | { kind: 'rows'; rows: StoredRows }
  | { kind: 'otlp'; messages: readonly (Uint8Array | null)[]; flatten?: FlattenOptions };

export interface RowCounts {
  toolCalls: number;
  warnings: number;
  spans: number;
}

export interface ComputedEntries {
  entries: EntriesByTenant;
  /** Rows hashed per table: the recorder checks them against the rows it records (a guard against drift). */
  counts: RowCounts;
}

/** One request to the worker (the `otlp` values packed: `ends[i]` is where message i ends in `bytes`). */
export type WorkerRequest =
  | { id: number; kind: 'rows'; rows: StoredRows }
  | { id: number; kind: 'otlp'; bytes: Uint8Array; ends: Int32Array; flatten: FlattenOptions | undefined };

export type WorkerResponse = { id: number; result: ComputedEntries } | { id: number; error: string };

export function countsOf(rows: StoredRows): RowCounts {
  return { toolCalls: rows.toolCalls.length, warnings: rows.warnings.length, spans: rows.spans.length };
}

export function entriesFromRows(rows: StoredRows): ComputedEntries {
  return { entries: digestEntries(rows), counts: countsOf(rows) };
}

/** Packs message values into one buffer the worker can take over (transfer) without cloning. */
export function packMessages(messages: readonly (Uint8Array | null)[]): {
  bytes: Uint8Array<ArrayBuffer>;
  ends: Int32Array<ArrayBuffer>;
} {
  let total = 0;
  for (const m of messages) total += m?.length ?? 0;
  const bytes = new Uint8Array(total);
  const ends = new Int32Array(messages.length);
  let at = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (m) {
      bytes.set(m, at);
      at += m.length;
    }
    ends[i] = at;
  }
  return { bytes, ends };
}

export function entriesFromOtlp(
  bytes: Uint8Array,
  ends: Int32Array,
  flatten: FlattenOptions | undefined,
): ComputedEntries {
  const flat = emptyFlattenResult();
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let start = 0;
  for (const end of ends) {
    const value = buf.subarray(start, end);
    start = end;
    // An empty or null value decodes to no spans; an undecodable one is dead-lettered by the consumer: no rows.
    if (value.length === 0) continue;
    let request: ReturnType<typeof decodeExportTraceServiceRequestFast>;
    try {
      request = decodeExportTraceServiceRequestFast(value);
    } catch {
      continue;
    }
    flattenInto(flat, request, flatten);
  }
  return entriesFromRows(flat);
}

export function compute(req: WorkerRequest): ComputedEntries {
  return req.kind === 'rows' ? entriesFromRows(req.rows) : entriesFromOtlp(req.bytes, req.ends, req.flatten);
}
