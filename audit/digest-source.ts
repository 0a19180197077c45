/**
 * What the log's leaves of a stored batch are computed from, and the computation itself (shared by the recorder,
 * the digest worker and the tests).
 *
 * `rows`: row objects (the JSON-format writer; structured-cloned to the worker). `native`: the Native blocks the
 * writer inserted (native-entries.ts hashes them without row objects; copied to the worker into one transferable
 * buffer, a memcpy on the main thread).
 */
import { Buffer } from 'node:buffer';
import { type BatchSource, countsOf, isBlocks, type RowCounts, type StoredBatch } from '../schema/batch.ts';
import { digestEntries, type StoredRows } from './entries.ts';
import { runsFromBlocks, type StoredBlocks } from './native-entries.ts';
import { type RunsByTenant, runsOfEntries } from './runs.ts';

export { countsOf, isBlocks, type RowCounts, type StoredBatch };

export type DigestSource = BatchSource;

export interface ComputedRuns {
  runs: RunsByTenant;
  /** Rows hashed per table: the recorder checks them against the rows it records (a guard against drift). */
  counts: RowCounts;
}

/** One request to the worker (`native`: the three bodies packed, `ends[i]` is where body i ends in `bytes`). */
export type WorkerRequest =
  | { id: number; kind: 'rows'; rows: StoredRows }
  | { id: number; kind: 'native'; bytes: Uint8Array; ends: Int32Array; counts: RowCounts };

export type WorkerResponse = { id: number; result: ComputedRuns } | { id: number; error: string };

/** The leaves of a stored batch, from its Native blocks or from its rows (the same bytes hashed either way). */
export function runsOf(stored: StoredBatch): ComputedRuns {
  return {
    runs: isBlocks(stored) ? runsFromBlocks(stored) : runsOfEntries(digestEntries(stored)),
    counts: countsOf(stored),
  };
}

/** Runs as they arrive from the worker (structured clone turns Buffers into Uint8Arrays), as Buffers again. */
export function asBuffers(runs: RunsByTenant): RunsByTenant {
  const b = (u: Uint8Array) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));
  return new Map(
    [...runs].map(([tenant, list]) => [tenant, list.map((r) => ({ ...r, ids: b(r.ids), entries: b(r.entries) }))]),
  );
}

/** Packs the blocks' bodies into one buffer the worker can take over (transfer) without cloning. */
export function packBlocks(blocks: StoredBlocks): { bytes: Uint8Array<ArrayBuffer>; ends: Int32Array<ArrayBuffer> } {
  const bodies = [blocks.toolCalls.body, blocks.warnings.body, blocks.spans.body];
  const bytes = new Uint8Array(bodies.reduce((n, b) => n + b.length, 0));
  const ends = new Int32Array(bodies.length);
  let at = 0;
  for (const [i, b] of bodies.entries()) {
    bytes.set(b, at);
    at += b.length;
    ends[i] = at;
  }
  return { bytes, ends };
}

function unpackBlocks(bytes: Uint8Array, ends: Int32Array, counts: RowCounts): StoredBlocks {
  const all = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const part = (i: number) => all.subarray(i === 0 ? 0 : ends[i - 1], ends[i]);
  return {
    toolCalls: { rows: counts.toolCalls, body: part(0) },
    warnings: { rows: counts.warnings, body: part(1) },
    spans: { rows: counts.spans, body: part(2) },
  };
}

export function compute(req: WorkerRequest): ComputedRuns {
  return runsOf(req.kind === 'rows' ? req.rows : unpackBlocks(req.bytes, req.ends, req.counts));
}
