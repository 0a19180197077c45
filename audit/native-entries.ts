/**
 * Digest entries straight from the Native blocks the writer sent (platform/native/encode.ts, ingest/wire-columns.ts), with no
 * row object: the canonical text of each row (canonical.ts, version 1) is written byte by byte from the block's
 * column bytes, then hashed. It is what lets the ingest's column path (no row objects) record digests, and it
 * hashes exactly what ClickHouse received.
 *
 * The bytes hashed equal `entryHash(spec, valuesOf(spec, row))` for every row the encoders accept
 * (test/unit/audit/native-entries.test.ts compares both over random rows). Assumes the blocks' strings are UTF-8,
 * which both encoders guarantee (JS strings; wire-columns checks `isUtf8`).
 */
import { Buffer } from 'node:buffer';
import { ByteBuffer } from '../platform/native/byte-buffer.ts';
import type { BatchBlocks, NativeBlock } from '../schema/batch.ts';
import { type ColumnType, SPANS_SPEC, sha256, type TableSpec, TOOL_CALLS_SPEC, WARNINGS_SPEC } from './canonical.ts';
import type { DigestEntry } from './chain.ts';
import type { EntriesByTenant } from './entries.ts';
import { type NativeRowHasher, nativeRowHasher } from './native-core/index.ts';

/** The blocks of one stored batch, per table (schema/batch.ts). */
export type StoredBlocks = BatchBlocks;
export type { NativeBlock };

// ------------------------------------------------------------------------------------------------ block layout

// How a column's bytes are laid out (Native), by the type name in the block header.
const STR = 0;
const BOOL = 1;
const U64 = 2;
const I64 = 3;
const NULL_U64 = 4;
const NULL_I64 = 5;
const ARR_STR = 6;
const ARR_I64 = 7;
const MAP = 8;
const ARR_MAP = 9;
/** tool_calls.duration_ns: not in the block, derived from start_time and end_time as the table's ALIAS does. */
const DURATION = 10;
/** An array or map column empty in every row of the block (links, events, evidence: usually): `[]`, nothing read. */
const EMPTY = 11;

const LAYOUTS: Record<string, number> = {
  String: STR,
  Bool: BOOL,
  UInt64: U64,
  Int64: I64,
  "DateTime64(9, 'UTC')": I64,
  'Nullable(UInt64)': NULL_U64,
  'Nullable(Int64)': NULL_I64,
  'Array(String)': ARR_STR,
  "Array(DateTime64(9, 'UTC'))": ARR_I64,
  'Map(String, String)': MAP,
  'Array(Map(String, String))': ARR_MAP,
};

// Which layouts each canonical type may come from (anything else is a schema drift: refused).
const ACCEPTS: Record<ColumnType, readonly number[]> = {
  string: [STR],
  bool: [BOOL],
  uint: [U64],
  nullable_int: [NULL_U64, NULL_I64],
  time: [I64],
  strings: [ARR_STR],
  times: [ARR_I64],
  map: [MAP],
  maps: [ARR_MAP],
};

// The last string read: where its bytes start and how many (module registers: no tuple per string on the hot path).
let strStart = 0;
let strLen = 0;

/** Reads the Native string (varint length + bytes) at `at` into strStart/strLen; returns the position after it. */
function readString(b: Buffer, at: number): number {
  let c = b[at++]!;
  if (c < 0x80) {
    strStart = at;
    strLen = c;
    return at + c;
  }
  let len = c & 0x7f;
  let mul = 128;
  for (;;) {
    if (!(at < b.length)) throw new Error('native block: truncated varint');
    c = b[at++]!;
    len += (c & 0x7f) * mul;
    if (c < 0x80) break;
    mul *= 128;
  }
  strStart = at;
  strLen = len;
  return at + len;
}

function readVarint(b: Buffer, at: number): [value: number, next: number] {
  let v = 0;
  let mul = 1;
  for (;;) {
    if (!(at < b.length)) throw new Error('native block: truncated varint');
    const c = b[at++]!;
    v += (c & 0x7f) * mul;
    if (c < 0x80) return [v, at];
    mul *= 128;
  }
}

function u32At(b: Buffer, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 16777216;
}

/** A UInt64 offset (cumulative array end) as a number: offsets stay far below 2^53. */
function u64At(b: Buffer, at: number): number {
  return u32At(b, at) + u32At(b, at + 4) * 4294967296;
}

/** Position after `count` Native strings starting at `at`. */
function skipStrings(b: Buffer, at: number, count: number): number {
  for (let i = 0; i < count; i++) {
    const c = b[at]!;
    at = c < 0x80 ? at + 1 + c : readString(b, at);
  }
  if (!(at <= b.length)) throw new Error('native block: string past the end');
  return at;
}

/** Where one column's parts start; cursors advance row by row. */
interface Column {
  /** Its layout by type name (what the spec checks). */
  declared: number;
  /** How its values are written: `declared`, or EMPTY. */
  layout: number;
  /** STR: string cursor; fixed-width: values; NULL_*: null map; arrays and maps: (outer) offsets. */
  a: number;
  /** NULL_*: values; ARR_STR: element cursor; ARR_I64: elements; MAP: key cursor; ARR_MAP: inner offsets. */
  b: number;
  /** MAP: value cursor; ARR_MAP: key cursor. */
  c: number;
  /** ARR_MAP: value cursor. */
  d: number;
  /** Arrays and maps: the previous row's cumulative end (outer). */
  end: number;
  /** ARR_MAP: the previous map's cumulative pair end. */
  end2: number;
}

function column(layout: number, a = 0, b = 0, c = 0, d = 0): Column {
  return { declared: layout, layout, a, b, c, d, end: 0, end2: 0 };
}

/**
 * Checks `count` cumulative offsets at `at`: non-decreasing up to the last. Then every row's range lies within
 * the elements the column's extent was checked for, and no loop over a row's elements can run past them (a
 * corrupted offset would otherwise make one row loop up to 2^53 times).
 */
function checkOffsets(b: Buffer, at: number, count: number, name: string): void {
  let previous = 0;
  for (let i = 0; i < count; i++) {
    const end = u64At(b, at + 8 * i);
    if (!(end >= previous)) throw new Error(`native block: column ${name} has offsets out of order`);
    previous = end;
  }
}

/** Parses the block's header and finds each column's parts (one pass over the string lengths). */
function columnsOf(body: Buffer): { rows: number; byName: Map<string, Column> } {
  let at = 0;
  let ncols: number;
  let rows: number;
  [ncols, at] = readVarint(body, at);
  [rows, at] = readVarint(body, at);
  const byName = new Map<string, Column>();
  for (let i = 0; i < ncols; i++) {
    let len: number;
    [len, at] = readVarint(body, at);
    const name = body.toString('utf8', at, at + len);
    at += len;
    [len, at] = readVarint(body, at);
    const type = body.toString('utf8', at, at + len);
    at += len;
    const layout = LAYOUTS[type];
    if (layout === undefined) throw new Error(`native block: column ${name} has unsupported type ${type}`);
    const start = at;
    const lastEnd = (base: number) => (rows === 0 ? 0 : u64At(body, base + 8 * (rows - 1)));
    switch (layout) {
      case STR:
        at = skipStrings(body, at, rows);
        byName.set(name, column(layout, start));
        break;
      case BOOL:
        at += rows;
        byName.set(name, column(layout, start));
        break;
      case U64:
      case I64:
        at += 8 * rows;
        byName.set(name, column(layout, start));
        break;
      case NULL_U64:
      case NULL_I64:
        at += 9 * rows;
        byName.set(name, column(layout, start, start + rows));
        break;
      case ARR_STR: {
        const elements = start + 8 * rows;
        at = skipStrings(body, elements, lastEnd(start));
        byName.set(name, column(layout, start, elements));
        break;
      }
      case ARR_I64: {
        const elements = start + 8 * rows;
        at = elements + 8 * lastEnd(start);
        byName.set(name, column(layout, start, elements));
        break;
      }
      case MAP: {
        const keys = start + 8 * rows;
        const pairs = lastEnd(start);
        const values = skipStrings(body, keys, pairs);
        at = skipStrings(body, values, pairs);
        byName.set(name, column(layout, start, keys, values));
        break;
      }
      default: {
        // ARR_MAP: outer offsets (rows), inner offsets (maps), keys, values.
        const inner = start + 8 * rows;
        const maps = lastEnd(start);
        const keys = inner + 8 * maps;
        const pairs = maps === 0 ? 0 : u64At(body, inner + 8 * (maps - 1));
        const values = skipStrings(body, keys, pairs);
        at = skipStrings(body, values, pairs);
        byName.set(name, column(layout, start, inner, keys, values));
      }
    }
    // Negated so that NaN (offsets read past a truncated body) is refused too.
    if (!(at <= body.length)) throw new Error(`native block: column ${name} runs past the end`);
    if (layout >= ARR_STR) checkOffsets(body, start, rows, name);
    if (layout === ARR_MAP) checkOffsets(body, start + 8 * rows, lastEnd(start), name);
    const col = byName.get(name)!;
    if (layout >= ARR_STR && lastEnd(start) === 0) col.layout = EMPTY;
  }
  return { rows, byName };
}

/** The spec's columns in canonical order, each bound to its column in the block. */
function bind(spec: TableSpec, byName: Map<string, Column>): Column[] {
  return spec.columns.map(([name, type]) => {
    const col = byName.get(name);
    if (!col && spec === TOOL_CALLS_SPEC && name === 'duration_ns') return column(DURATION);
    if (!col) throw new Error(`native block for ${spec.table} has no column ${name}`);
    if (!ACCEPTS[type].includes(col.declared))
      throw new Error(`native block: ${spec.table}.${name} has the wrong type`);
    return col;
  });
}

// ------------------------------------------------------------------------------------------------ canonical text

const HEX = '0123456789abcdef';
/** 1 for the bytes JSON.stringify escapes in a string: controls, `"` and `\`. */
const ESCAPED = new Uint8Array(256);
for (let c = 0; c < 0x20; c++) ESCAPED[c] = 1;
ESCAPED[0x22] = 1;
ESCAPED[0x5c] = 1;
/** '000' to '999' as ASCII bytes, three per number. */
const DIGITS3 = Buffer.from(Array.from({ length: 1000 }, (_, i) => String(i).padStart(3, '0')).join(''), 'latin1');

/** The canonical text of one row at a time, as UTF-8 bytes in one reused buffer. */
class Canonical extends ByteBuffer {
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
function writeValue(out: Canonical, b: Buffer, col: Column, r: number, cols: readonly Column[]): void {
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
const START = TOOL_CALLS_SPEC.columns.findIndex(([n]) => n === 'start_time');
const END = TOOL_CALLS_SPEC.columns.findIndex(([n]) => n === 'end_time');

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

// ------------------------------------------------------------------------------------------------ entries

const HOUR_NS = 3_600_000_000_000n;

/** The hour (unix seconds, floored as canonical.ts `hourOf`) of the Int64 nanoseconds at `at`. */
function hourAt(b: Buffer, at: number): number {
  const lo = b.readUInt32LE(at);
  const hi = b.readUInt32LE(at + 4);
  if (hi < 0x80000000) {
    // Seconds to within one; a second's boundary never straddles an hour's, so flooring seconds suffices,
    // but the seconds themselves must be exact: correct them with the exact remainder as `unsigned` does.
    let q = Math.floor((hi * 4294967296 + lo) / 1e9);
    const rem = (lo - Math.imul(q, 1_000_000_000)) | 0;
    if (rem < 0) q -= 1;
    else if (rem >= 1e9) q += 1;
    return Math.floor(q / 3600) * 3600;
  }
  return Number((b.readBigInt64LE(at) / HOUR_NS) * 3600n);
}

/** The id string at a Native string cursor: span ids are 16 hex characters, built without a native call. */
function textAt(b: Buffer, at: number): string {
  readString(b, at);
  const p = strStart;
  if (strLen === 16) {
    let high = 0;
    for (let i = p; i < p + 16; i++) high |= b[i]!;
    if (high < 0x80) {
      // biome-ignore format: one argument per byte
      return String.fromCharCode(b[p]!, b[p + 1]!, b[p + 2]!, b[p + 3]!, b[p + 4]!, b[p + 5]!, b[p + 6]!, b[p + 7]!, b[p + 8]!, b[p + 9]!, b[p + 10]!, b[p + 11]!, b[p + 12]!, b[p + 13]!, b[p + 14]!, b[p + 15]!);
    }
  }
  return b.toString('utf8', p, p + strLen);
}

/** Whether the string at strStart/strLen has the bytes of `known`. */
function sameBytes(b: Buffer, known: Buffer): boolean {
  if (known.length !== strLen) return false;
  for (let i = 0; i < strLen; i++) if (b[strStart + i] !== known[i]) return false;
  return true;
}

/** The entry list of one tenant and hour (created on first use). */
function entryList(out: EntriesByTenant, tenant: string, hour: number): DigestEntry[] {
  let hours = out.get(tenant);
  if (!hours) {
    hours = new Map();
    out.set(tenant, hours);
  }
  let list = hours.get(hour);
  if (!list) {
    list = [];
    hours.set(hour, list);
  }
  return list;
}

const rowText = new Canonical();
const warningTexts = new Canonical();

/** A span's warning rows in one hour: where each row's `<table>\n<canonical row>` text lies in warningTexts. */
interface WarningGroup {
  tenant: string;
  hour: number;
  id: string;
  starts: number[];
  ends: number[];
}

/**
 * Where each row's entry goes, for both the JavaScript and the native walk: the row's tenant decoded once per run of
 * equal tenants, its (tenant, hour) list looked up once per run.
 */
class RowTarget {
  tenant = '';
  private tenantBytes: Buffer | undefined;
  private list: DigestEntry[] = [];
  private listTenant: string | undefined;
  private listHour = -1;

  constructor(private readonly out: EntriesByTenant) {}

  /** Reads the tenant string at `at` into `tenant`; returns the position after it. */
  readTenant(body: Buffer, at: number): number {
    const next = readString(body, at);
    if (!this.tenantBytes || !sameBytes(body, this.tenantBytes)) {
      this.tenantBytes = Buffer.from(body.subarray(strStart, strStart + strLen));
      this.tenant = this.tenantBytes.toString('utf8');
    }
    return next;
  }

  /** The entry list of `tenant` and `hour`. */
  listFor(hour: number): DigestEntry[] {
    if (this.tenant !== this.listTenant || hour !== this.listHour) {
      this.list = entryList(this.out, this.tenant, hour);
      this.listTenant = this.tenant;
      this.listHour = hour;
    }
    return this.list;
  }
}

/** Adds one block's entries (tool_calls, spans: one per row; warnings: one per (tenant, hour, span)). */
function addBlock(out: EntriesByTenant, spec: TableSpec, body: Buffer, hasher: NativeRowHasher | null): void {
  const { rows, byName } = columnsOf(body);
  const cols = bind(spec, byName);
  const tenantCol = cols[spec.columns.findIndex(([n]) => n === spec.tenant)]!;
  const timeCol = cols[spec.columns.findIndex(([n]) => n === spec.time)]!;
  const idCol = cols[spec.columns.findIndex(([n]) => n === spec.id)]!;
  const prefix = `${spec.table}\n`;
  const grouped = spec.table === 'tool_call_warnings';
  const groups = new Map<string, WarningGroup>();
  // Warning rows are kept (grouped after the loop), other rows hashed one by one from one reused buffer.
  const c = grouped ? warningTexts : rowText;
  c.pos = 0;
  if (!grouped && hasher && hashNatively(hasher, out, spec, body, rows, cols, tenantCol, timeCol, idCol)) return;
  const target = new RowTarget(out);
  for (let r = 0; r < rows; r++) {
    // Read before the row's cursors move past them.
    target.readTenant(body, tenantCol.a);
    const tenant = target.tenant;
    const hour = hourAt(body, timeCol.a + 8 * r);
    const id = textAt(body, idCol.a);
    const start = c.pos;
    c.ascii(prefix);
    c.u8(0x5b);
    for (let i = 0; i < cols.length; i++) {
      if (i > 0) c.u8(0x2c);
      writeValue(c, body, cols[i]!, r, cols);
    }
    c.u8(0x5d);
    if (!grouped) {
      target.listFor(hour).push({ table: spec.table, id, hash: c.hash(0) });
      c.pos = 0;
      continue;
    }
    const k = `${tenant}\u0000${hour}\u0000${id}`;
    let g = groups.get(k);
    if (!g) {
      g = { tenant, hour, id, starts: [], ends: [] };
      groups.set(k, g);
    }
    g.starts.push(start);
    g.ends.push(c.pos);
  }
  // One entry per group, as canonical.ts `entryHash`: the sorted canonical lines under one table prefix.
  for (const g of groups.values()) {
    let hash: string;
    if (g.starts.length === 1) hash = sha256(c.buf.subarray(g.starts[0], g.ends[0]));
    else {
      const lines = g.starts.map((st, i) => c.buf.toString('utf8', st + prefix.length, g.ends[i]));
      hash = sha256(`${prefix}${lines.sort().join('\n')}`);
    }
    entryList(out, g.tenant, g.hour).push({ table: spec.table, id: g.id, hash });
  }
}

let hexOut = Buffer.allocUnsafe(64 * 1024);
const prefixes = new Map<string, Buffer>();

/**
 * addBlock's rows hashed by the native row hasher (one call per block), their ids and hours read here. False, with
 * the columns' cursors untouched, when it declines the block (non-ASCII map keys, malformed): JavaScript does it.
 */
function hashNatively(
  hasher: NativeRowHasher,
  out: EntriesByTenant,
  spec: TableSpec,
  body: Buffer,
  rows: number,
  cols: readonly Column[],
  tenantCol: Column,
  timeCol: Column,
  idCol: Column,
): boolean {
  const desc = new Float64Array(5 * cols.length);
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!;
    desc.set([c.layout, c.a, c.b, c.c, c.d], 5 * i);
  }
  if (hexOut.length < 64 * rows) hexOut = Buffer.allocUnsafe(64 * rows);
  let prefix = prefixes.get(spec.table);
  if (!prefix) {
    prefix = Buffer.from(`${spec.table}\n`);
    prefixes.set(spec.table, prefix);
  }
  const timed = spec === TOOL_CALLS_SPEC;
  if (hasher.hashRows(body, desc, rows, prefix, timed ? START : 0, timed ? END : 0, hexOut) !== 0) return false;
  // One string of every hash; each row's is a slice of it (V8 shares the characters: no copy, no call per row).
  const hashes = hexOut.toString('latin1', 0, 64 * rows);
  const target = new RowTarget(out);
  let tenantAt = tenantCol.a;
  let idAt = idCol.a;
  for (let r = 0; r < rows; r++) {
    tenantAt = target.readTenant(body, tenantAt);
    const hour = hourAt(body, timeCol.a + 8 * r);
    const id = textAt(body, idAt);
    idAt = strStart + strLen;
    target.listFor(hour).push({ table: spec.table, id, hash: hashes.slice(64 * r, 64 * r + 64) });
  }
  return true;
}

/**
 * Entries per tenant, per hour, for the rows of these blocks; the same as `digestEntries` of their rows. `hasher`:
 * the native row hasher when built; `null`: the JavaScript writer alone (tests and benchmarks compare both).
 */
export function entriesFromBlocks(
  blocks: StoredBlocks,
  hasher: NativeRowHasher | null = nativeRowHasher ?? null,
): EntriesByTenant {
  const out: EntriesByTenant = new Map();
  if (blocks.toolCalls.rows > 0) addBlock(out, TOOL_CALLS_SPEC, blocks.toolCalls.body, hasher);
  if (blocks.warnings.rows > 0) addBlock(out, WARNINGS_SPEC, blocks.warnings.body, hasher);
  if (blocks.spans.rows > 0) addBlock(out, SPANS_SPEC, blocks.spans.body, hasher);
  return out;
}
