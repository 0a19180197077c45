/** A partition's column streams, where messages' rows append, and the Native blocks assembled from their ranges. */
import { Buffer } from 'node:buffer';
import { nativeTypeName as nativeTypeName$ } from '../../platform/native/encode.ts';
import type { NativeBlock } from '../../schema/batch.ts';
import {
  type ColumnLayout,
  SPANS as SPANS$,
  STREAMS as STREAMS$,
  type TableLayout,
  TOOL_CALLS as TOOL_CALLS$,
  WARNINGS as WARNINGS$,
} from './layout.ts';
import { encodedString as encodedString$, Stream, varintBytes as varintBytes$ } from './stream.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const nativeTypeName = nativeTypeName$;
const SPANS = SPANS$;
const STREAMS = STREAMS$;
const TOOL_CALLS = TOOL_CALLS$;
const WARNINGS = WARNINGS$;
const encodedString = encodedString$;
const varintBytes = varintBytes$;

/** Rows a message added per table, and where its bytes are in each stream. */
export interface ColumnsMark {
  toolCalls: number;
  warnings: number;
  spans: number;
  /** `[start, end)` of stream i at `2i`, `2i + 1`. */
  ranges: number[];
  /** Order of decoding in its arena: consecutive marks have adjacent ranges. */
  seq: number;
}

/** One partition's column streams: messages append to them in turn; a batch is assembled from its messages' ranges. */
export class ColumnArena {
  readonly streams: Stream[] = Array.from({ length: STREAMS }, () => new Stream());
  seq = 0;
  /** Per table, the memory its blocks are assembled into, kept from one batch to the next (see `output`). */
  private readonly outputs: Buffer[] = [];

  /**
   * `size` bytes to assemble table `t`'s next block into: the memory of the arena's previous block of that table
   * when it is large enough. A fresh buffer of tens of MB costs the kernel a page fault and a zeroed page per 4 KiB
   * on first write, several times the copy itself. So a block is valid until the arena assembles the next one: the
   * partition stores its batches one at a time, and a reset partition takes a new arena.
   */
  output(t: number, size: number): Buffer {
    let b = this.outputs[t];
    if (!b || b.length < size) {
      b = Buffer.allocUnsafe(Math.max(size, Math.ceil((b?.length ?? 0) * 1.25)));
      this.outputs[t] = b;
    }
    return b.subarray(0, size);
  }

  /** Drops the bytes before the first of `live` (the marks still buffered) and shifts their ranges. */
  compact(live: readonly ColumnsMark[]): void {
    for (let s = 0; s < STREAMS; s++) {
      const stream = this.streams[s]!;
      let from = stream.pos;
      for (const m of live) if (m.ranges[2 * s]! < from) from = m.ranges[2 * s]!;
      if (from === 0) continue;
      stream.buf.copy(stream.buf, 0, from, stream.pos);
      stream.pos -= from;
      for (const m of live) {
        m.ranges[2 * s] = m.ranges[2 * s]! - from;
        m.ranges[2 * s + 1] = m.ranges[2 * s + 1]! - from;
      }
    }
  }
}

/** The three Native blocks of a batch, with their row counts (and, from the arena, where their parts lie). */
export interface EncodedRows {
  toolCalls: NativeBlock;
  warnings: NativeBlock;
  spans: NativeBlock;
}

const COLUMN_HEADERS = new Map<ColumnLayout, Buffer>();
function columnHeader(c: ColumnLayout): Buffer {
  let h = COLUMN_HEADERS.get(c);
  if (!h) {
    h = Buffer.concat([encodedString(c.name), encodedString(nativeTypeName(c.type))]);
    COLUMN_HEADERS.set(c, h);
  }
  return h;
}

/** One table's Native block from the marks' ranges (in order; adjacent ranges are copied at once). */
function assembleTable(
  arena: ColumnArena,
  t: number,
  table: TableLayout,
  marks: readonly ColumnsMark[],
  rows: number,
): NativeBlock {
  const parts: number[] = [];
  let size = 0;
  const head = Buffer.concat([varintBytes(table.columns.length), varintBytes(rows)]);
  size += head.length;
  for (const c of table.columns) {
    size += columnHeader(c).length;
    for (let k = 0; k < c.kinds.length; k++) {
      const s = c.first + k;
      let bytes = 0;
      for (const m of marks) bytes += m.ranges[2 * s + 1]! - m.ranges[2 * s]!;
      size += c.kinds[k] === 'counts' ? bytes * 2 : bytes;
    }
  }
  const out = arena.output(t, size);
  let pos = head.copy(out, 0);
  for (const c of table.columns) {
    pos += columnHeader(c).copy(out, pos);
    for (let k = 0; k < c.kinds.length; k++) {
      const s = c.first + k;
      const src = arena.streams[s]!.buf;
      parts.push(pos);
      if (c.kinds[k] === 'counts') {
        // Per-row counts -> cumulative UInt64 end offsets over the block.
        let total = 0;
        for (const m of marks) {
          for (let p = m.ranges[2 * s]!, end = m.ranges[2 * s + 1]!; p < end; p += 4) {
            total += src[p]! + src[p + 1]! * 0x100 + src[p + 2]! * 0x10000 + src[p + 3]! * 0x1000000;
            // Below 2^32 in any block this side can build (a batch is at most tens of MB).
            out[pos] = total;
            out[pos + 1] = total >>> 8;
            out[pos + 2] = total >>> 16;
            out[pos + 3] = total >>> 24;
            out[pos + 4] = 0;
            out[pos + 5] = 0;
            out[pos + 6] = 0;
            out[pos + 7] = 0;
            pos += 8;
          }
        }
        parts.push(pos);
        continue;
      }
      let i = 0;
      while (i < marks.length) {
        const start = marks[i]!.ranges[2 * s]!;
        let end = marks[i]!.ranges[2 * s + 1]!;
        i++;
        while (i < marks.length && marks[i]!.ranges[2 * s] === end) end = marks[i++]!.ranges[2 * s + 1]!;
        pos += src.copy(out, pos, start, end);
      }
      parts.push(pos);
    }
  }
  if (pos !== size) throw new Error(`ingest/columns: assembled ${pos} bytes, expected ${size}`);
  return { rows, body: out, parts };
}

/** The Native blocks of the messages with these marks (in offset order), valid until the arena's next ones. */
export function assembleBlocks(arena: ColumnArena, marks: readonly ColumnsMark[]): EncodedRows {
  let toolCalls = 0;
  let warnings = 0;
  let spans = 0;
  for (const m of marks) {
    toolCalls += m.toolCalls;
    warnings += m.warnings;
    spans += m.spans;
  }
  // Marks decoded one after the other cover one range per stream: copy each stream's bytes at once.
  let parts = marks;
  const first = marks[0];
  const last = marks[marks.length - 1];
  if (first && last && last.seq - first.seq === marks.length - 1) {
    const ranges: number[] = new Array(2 * STREAMS).fill(0);
    for (let s = 0; s < STREAMS; s++) {
      ranges[2 * s] = first.ranges[2 * s]!;
      ranges[2 * s + 1] = last.ranges[2 * s + 1]!;
    }
    parts = [{ toolCalls, warnings, spans, ranges, seq: first.seq }];
  }
  const block = (t: number, table: TableLayout, rows: number): NativeBlock =>
    rows === 0 ? { rows, body: Buffer.alloc(0) } : assembleTable(arena, t, table, parts, rows);
  return {
    toolCalls: block(0, TOOL_CALLS, toolCalls),
    warnings: block(1, WARNINGS, warnings),
    spans: block(2, SPANS, spans),
  };
}
