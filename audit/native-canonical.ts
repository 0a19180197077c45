/**
 * The canonical bytes (canonical.ts, version 2) of a row written from its Native column bytes, as the native hasher
 * (native-core/row-hashes.c) writes them when it is not built or declines a block: strings and 64-bit values copied
 * as they lie, map keys ordered as JS orders strings, tool_calls.duration_ns derived from start and end as the
 * table's ALIAS does. Byte for byte what canonical.ts `rowBytes` gives for the row's values.
 */
import type { Buffer } from 'node:buffer';
import { ByteBuffer } from '../platform/native/byte-buffer.ts';
import { TOOL_CALLS_SPEC } from './canonical.ts';
import {
  ARR_I64,
  ARR_MAP,
  ARR_STR,
  BOOL,
  type Column,
  EMPTY,
  I64,
  MAP,
  NULL_I64,
  NULL_U64,
  readString,
  STR,
  strLen,
  strStart,
  U64,
  u64At,
} from './native-block.ts';

/** The canonical bytes of one row at a time, in one reused buffer. */
export class Canonical extends ByteBuffer {
  constructor() {
    super(1 << 16);
  }

  ascii(s: string): void {
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
  }

  /** A string: its length, then its bytes. */
  bytes(src: Buffer, start: number, len: number): void {
    this.varint(len);
    this.copy(src, start, len);
  }

  /** `len` bytes of `src` as they are (64-bit values, arrays of them); past its end is an error, never fewer. */
  copy(src: Buffer, start: number, len: number): void {
    if (start + len > src.length) throw new RangeError(`a value at ${start} runs past the block's end`);
    this.ensure(len);
    src.copy(this.buf, this.pos, start, start + len);
    this.pos += len;
  }
}

// One map's key and value positions (reused: maps hold a handful of pairs; grown when one holds more).
let keyStarts = new Int32Array(64);
let keyLens = new Int32Array(64);
let valueStarts = new Int32Array(64);
let valueLens = new Int32Array(64);
let order = new Int32Array(64);

/**
 * Writes the count, then key and value of each of `n` pairs whose keys and values start at the cursors, sorted by key
 * as canonical.ts sorts (JS string order); sets mapKeyAt/mapValueAt to the cursors after them.
 */
let mapKeyAt = 0;
let mapValueAt = 0;
function writeMap(out: Canonical, b: Buffer, keyAt: number, valueAt: number, n: number): void {
  if (n > keyStarts.length) {
    keyStarts = new Int32Array(n);
    keyLens = new Int32Array(n);
    valueStarts = new Int32Array(n);
    valueLens = new Int32Array(n);
    order = new Int32Array(n);
  }
  let ascii = true;
  for (let i = 0; i < n; i++) {
    keyAt = readString(b, keyAt);
    keyStarts[i] = strStart;
    keyLens[i] = strLen;
    for (let j = strStart; j < keyAt; j++) if (b[j]! >= 0x80) ascii = false;
  }
  for (let i = 0; i < n; i++) {
    valueAt = readString(b, valueAt);
    valueStarts[i] = strStart;
    valueLens[i] = strLen;
  }
  mapKeyAt = keyAt;
  mapValueAt = valueAt;
  for (let i = 0; i < n; i++) order[i] = i;
  if (n > 1) {
    if (ascii) insertionSortAscii(b, n);
    else {
      // UTF-8 byte order differs from UTF-16 order past U+FFFF: compare as JS strings.
      const keys = Array.from({ length: n }, (_, i) => b.toString('utf8', keyStarts[i]!, keyStarts[i]! + keyLens[i]!));
      const sorted = Array.from({ length: n }, (_, i) => i).sort((x, y) =>
        keys[x]! < keys[y]! ? -1 : keys[x]! > keys[y]! ? 1 : 0,
      );
      order.set(sorted);
    }
  }
  out.varint(n);
  for (let j = 0; j < n; j++) {
    const i = order[j]!;
    out.bytes(b, keyStarts[i]!, keyLens[i]!);
    out.bytes(b, valueStarts[i]!, valueLens[i]!);
  }
}

/** Key order for ASCII keys (byte order is JS string order); maps are small, keys unique. */
function insertionSortAscii(b: Buffer, n: number): void {
  for (let i = 1; i < n; i++) {
    const x = order[i]!;
    let j = i - 1;
    while (j >= 0 && compareKeys(b, order[j]!, x) > 0) {
      order[j + 1] = order[j]!;
      j--;
    }
    order[j + 1] = x;
  }
}

function compareKeys(b: Buffer, x: number, y: number): number {
  const xs = keyStarts[x]!;
  const ys = keyStarts[y]!;
  const xl = keyLens[x]!;
  const yl = keyLens[y]!;
  const n = Math.min(xl, yl);
  for (let i = 0; i < n; i++) {
    const d = b[xs + i]! - b[ys + i]!;
    if (d !== 0) return d;
  }
  return xl - yl;
}

/** Appends row `r`'s value of one column and advances its cursors. */
export function writeValue(out: Canonical, b: Buffer, col: Column, r: number, cols: readonly Column[]): void {
  switch (col.layout) {
    case STR:
      col.a = readString(b, col.a);
      out.bytes(b, strStart, strLen);
      return;
    case EMPTY:
      out.u8(0);
      return;
    case BOOL:
      out.u8(b[col.a + r] === 1 ? 1 : 0);
      return;
    case U64:
    case I64:
      out.copy(b, col.a + 8 * r, 8);
      return;
    case NULL_U64:
    case NULL_I64:
      if (b[col.a + r] === 1) out.u8(1);
      else {
        out.u8(0);
        out.copy(b, col.b + 8 * r, 8);
      }
      return;
    case ARR_STR: {
      const end = u64At(b, col.a + 8 * r);
      out.varint(end - col.end);
      for (let i = col.end; i < end; i++) {
        col.b = readString(b, col.b);
        out.bytes(b, strStart, strLen);
      }
      col.end = end;
      return;
    }
    case ARR_I64: {
      const end = u64At(b, col.a + 8 * r);
      out.varint(end - col.end);
      out.copy(b, col.b + 8 * col.end, 8 * (end - col.end));
      col.end = end;
      return;
    }
    case MAP: {
      const end = u64At(b, col.a + 8 * r);
      writeMap(out, b, col.b, col.c, end - col.end);
      col.b = mapKeyAt;
      col.c = mapValueAt;
      col.end = end;
      return;
    }
    case ARR_MAP: {
      const end = u64At(b, col.a + 8 * r);
      out.varint(end - col.end);
      for (let m = col.end; m < end; m++) {
        const pairs = u64At(b, col.b + 8 * m);
        writeMap(out, b, col.c, col.d, pairs - col.end2);
        col.c = mapKeyAt;
        col.d = mapValueAt;
        col.end2 = pairs;
      }
      col.end = end;
      return;
    }
    default:
      writeDuration(out, b, cols, r);
  }
}

// tool_calls' start_time and end_time positions in TOOL_CALLS_SPEC (checked below, at load).
export const START = TOOL_CALLS_SPEC.columns.findIndex(([n]) => n === 'start_time');
export const END = TOOL_CALLS_SPEC.columns.findIndex(([n]) => n === 'end_time');

/** max(end - start, 0) over the Int64 nanoseconds stored, wrapped to 64 bits as ClickHouse computes it. */
function writeDuration(out: Canonical, b: Buffer, cols: readonly Column[], r: number): void {
  const d = BigInt.asIntN(64, b.readBigInt64LE(cols[END]!.a + 8 * r) - b.readBigInt64LE(cols[START]!.a + 8 * r));
  out.ensure(8);
  out.buf.writeBigInt64LE(d > 0n ? d : 0n, out.pos);
  out.pos += 8;
}
