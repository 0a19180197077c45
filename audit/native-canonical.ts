/**
 * The canonical text (canonical.ts, version 1) of a row written byte by byte from its Native column bytes: strings
 * copied with JSON's escapes, 64-bit values printed without bigint, map keys ordered as JS orders strings, and
 * tool_calls.duration_ns derived from start and end as the table's ALIAS does.
 */
import { Buffer } from 'node:buffer';
import { ByteBuffer } from '../platform/native/byte-buffer.ts';
import { sha256, TOOL_CALLS_SPEC } from './canonical.ts';
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
  u32At,
  u64At,
} from './native-block.ts';

const HEX = '0123456789abcdef';
/** 1 for the bytes JSON.stringify escapes in a string: controls, `"` and `\`. */
const ESCAPED = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) ESCAPED[c] = 1;
ESCAPED[0x22] = 1;
ESCAPED[0x5c] = 1;
/** '000' to '999' as ASCII bytes, three per number. */
const DIGITS3 = Buffer.from(Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')).join(''), 'latin1');

/** The canonical text of one row at a time, as UTF-8 bytes in one reused buffer. */
export class Canonical extends ByteBuffer {
  constructor() {
    super(1 << 16);
  }

  ascii(s: string): void {
    this.ensure(s.length);
    for (let i = 0; i < s.length; i++) this.buf[this.pos++] = s.charCodeAt(i);
  }

  /** A JSON string of UTF-8 bytes, escaped exactly as JSON.stringify escapes (only `"`, `\` and controls). */
  jsonString(src: Buffer, start: number, len: number): void {
    this.ensure(len * 6 + 2);
    const out = this.buf;
    let p = this.pos;
    out[p++] = 0x22;
    const end = start + len;
    for (let i = start; i < end; i++) {
      const c = src[i]!;
      if (ESCAPED[c] === 0) {
        out[p++] = c;
        continue;
      }
      out[p++] = 0x5c;
      if (c === 0x22 || c === 0x5c) out[p++] = c;
      else if (c === 0x08)
        out[p++] = 0x62; // b
      else if (c === 0x09)
        out[p++] = 0x74; // t
      else if (c === 0x0a)
        out[p++] = 0x6e; // n
      else if (c === 0x0c)
        out[p++] = 0x66; // f
      else if (c === 0x0d)
        out[p++] = 0x72; // r
      else {
        out[p++] = 0x75; // u00XX, lower-case hex like JSON.stringify
        out[p++] = 0x30;
        out[p++] = 0x30;
        out[p++] = HEX.charCodeAt(c >> 4);
        out[p++] = HEX.charCodeAt(c & 15);
      }
    }
    out[p++] = 0x22;
    this.pos = p;
  }

  /** Decimal digits of a non-negative integer below 2^53, three at a time. */
  digits(v: number): void {
    if (v >= 1000) {
      const high = Math.floor(v / 1000);
      this.digits(high);
      const low = v - high * 1000;
      this.ensure(3);
      this.buf[this.pos] = DIGITS3[3 * low]!;
      this.buf[this.pos + 1] = DIGITS3[3 * low + 1]!;
      this.buf[this.pos + 2] = DIGITS3[3 * low + 2]!;
      this.pos += 3;
      return;
    }
    this.ensure(3);
    // The last one to three digits of '000'-'999': no leading zeros.
    const from = v >= 100 ? 0 : v >= 10 ? 1 : 2;
    for (let i = 3 * v + from; i < 3 * v + 3; i++) this.buf[this.pos++] = DIGITS3[i]!;
  }

  /** `"<decimal>"` of the 64-bit value at `at` (signed: Int64 and DateTime64; else UInt64). */
  quoted64(src: Buffer, at: number, signed: boolean): void {
    const lo = u32At(src, at);
    const hi = u32At(src, at + 4);
    this.u8(0x22);
    if (signed && hi >= 0x80000000) this.ascii(src.readBigInt64LE(at).toString());
    else this.unsigned(lo, hi);
    this.u8(0x22);
  }

  /** Decimal of hi * 2^32 + lo (unsigned), without bigint: seconds, then 9 digits of nanoseconds. */
  unsigned(lo: number, hi: number): void {
    if (hi < 0x200000) {
      this.digits(hi * 4294967296 + lo);
      return;
    }
    // q = value / 1e9 to within one (the float sum is off by at most 2^11); the remainder is exact mod 2^32 and
    // lies within (-1e9, 2e9), so its int32 reading is the true remainder.
    let q = Math.floor((hi * 4294967296 + lo) / 1e9);
    let r = (lo - Math.imul(q, 1_000_000_000)) | 0;
    if (r < 0) {
      r += 1e9;
      q -= 1;
    } else if (r >= 1e9) {
      r -= 1e9;
      q += 1;
    }
    if (q >= 1e9 && q < 1e10) {
      // Seconds of this century: one digit, then nine like the nanoseconds.
      const first = Math.floor(q / 1e9);
      this.ensure(1);
      this.buf[this.pos++] = 48 + first;
      this.nine(q - first * 1e9);
    } else this.digits(q);
    this.nine(r);
  }

  /** Exactly nine digits (leading zeros kept) of 0 <= v < 1e9, three at a time. */
  nine(v: number): void {
    this.ensure(9);
    const buf = this.buf;
    const p = this.pos;
    const a = Math.floor(v / 1_000_000);
    const rest = v - a * 1_000_000;
    const b = Math.floor(rest / 1000);
    const c = rest - b * 1000;
    buf[p] = DIGITS3[3 * a]!;
    buf[p + 1] = DIGITS3[3 * a + 1]!;
    buf[p + 2] = DIGITS3[3 * a + 2]!;
    buf[p + 3] = DIGITS3[3 * b]!;
    buf[p + 4] = DIGITS3[3 * b + 1]!;
    buf[p + 5] = DIGITS3[3 * b + 2]!;
    buf[p + 6] = DIGITS3[3 * c]!;
    buf[p + 7] = DIGITS3[3 * c + 1]!;
    buf[p + 8] = DIGITS3[3 * c + 2]!;
    this.pos = p + 9;
  }

  /** The bytes from `start` to here (a row with its table prefix) hashed. */
  hash(start: number): string {
    return sha256(this.buf.subarray(start, this.pos));
  }
}

// One map's key and value positions (reused: maps hold a handful of pairs; grown when one holds more).
let keyStarts = new Int32Array(64);
let keyLens = new Int32Array(64);
let valueStarts = new Int32Array(64);
let valueLens = new Int32Array(64);
let order = new Int32Array(64);

/**
 * Writes `[["k","v"],...]` for `n` pairs whose keys and values start at the cursors, sorted by key as canonical.ts
 * sorts (JS string order); sets mapKeyAt/mapValueAt to the cursors after them.
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
  out.u8(0x5b);
  for (let j = 0; j < n; j++) {
    const i = order[j]!;
    if (j > 0) out.u8(0x2c);
    out.u8(0x5b);
    out.jsonString(b, keyStarts[i]!, keyLens[i]!);
    out.u8(0x2c);
    out.jsonString(b, valueStarts[i]!, valueLens[i]!);
    out.u8(0x5d);
  }
  out.u8(0x5d);
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
      out.jsonString(b, strStart, strLen);
      return;
    case EMPTY:
      out.ensure(2);
      out.buf[out.pos] = 0x5b;
      out.buf[out.pos + 1] = 0x5d;
      out.pos += 2;
      return;
    case BOOL:
      out.ascii(b[col.a + r] === 1 ? 'true' : 'false');
      return;
    case U64:
      out.quoted64(b, col.a + 8 * r, false);
      return;
    case I64:
      out.quoted64(b, col.a + 8 * r, true);
      return;
    case NULL_U64:
    case NULL_I64:
      if (b[col.a + r] === 1) out.ascii('null');
      else out.quoted64(b, col.b + 8 * r, col.layout === NULL_I64);
      return;
    case ARR_STR: {
      const end = u64At(b, col.a + 8 * r);
      out.u8(0x5b);
      for (let i = col.end; i < end; i++) {
        if (i > col.end) out.u8(0x2c);
        col.b = readString(b, col.b);
        out.jsonString(b, strStart, strLen);
      }
      out.u8(0x5d);
      col.end = end;
      return;
    }
    case ARR_I64: {
      const end = u64At(b, col.a + 8 * r);
      out.u8(0x5b);
      for (let i = col.end; i < end; i++) {
        if (i > col.end) out.u8(0x2c);
        out.quoted64(b, col.b + 8 * i, true);
      }
      out.u8(0x5d);
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
      out.u8(0x5b);
      for (let m = col.end; m < end; m++) {
        if (m > col.end) out.u8(0x2c);
        const pairs = u64At(b, col.b + 8 * m);
        writeMap(out, b, col.c, col.d, pairs - col.end2);
        col.c = mapKeyAt;
        col.d = mapValueAt;
        col.end2 = pairs;
      }
      out.u8(0x5d);
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

/** `"<max(end - start, 0)>"` over the Int64 nanoseconds stored, wrapped to 64 bits as ClickHouse computes it. */
function writeDuration(out: Canonical, b: Buffer, cols: readonly Column[], r: number): void {
  const s = cols[START]!.a + 8 * r;
  const e = cols[END]!.a + 8 * r;
  const dHi = b.readInt32LE(e + 4) - b.readInt32LE(s + 4);
  out.u8(0x22);
  if (dHi > -0x100000 && dHi < 0x100000) {
    const d = dHi * 4294967296 + (b.readUInt32LE(e) - b.readUInt32LE(s));
    out.digits(Math.max(d, 0));
  } else {
    const d = BigInt.asIntN(64, b.readBigInt64LE(e) - b.readBigInt64LE(s));
    out.ascii(d > 0n ? d.toString() : '0');
  }
  out.u8(0x22);
}
