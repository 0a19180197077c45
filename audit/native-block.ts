/**
 * The Native block layout the audit reads (platform/native/encode.ts, ingest/columns/ write it): the header,
 * where each column's parts start, every extent and offset checked before a row is walked, and the columns bound to
 * a table's canonical spec. Shared by the JavaScript canonical writer (native-canonical.ts) and the native hasher's
 * column descriptors (native-entries.ts).
 */
import { Buffer } from 'node:buffer';
import { type ColumnType, type TableSpec, TOOL_CALLS_SPEC } from './canonical.ts';
import type { NativeRowHasher } from './native-core/index.ts';

// How a column's bytes are laid out (Native), by the type name in the block header.
export const STR = 0;
export const BOOL = 1;
export const U64 = 2;
export const I64 = 3;
export const NULL_U64 = 4;
export const NULL_I64 = 5;
export const ARR_STR = 6;
export const ARR_I64 = 7;
export const MAP = 8;
export const ARR_MAP = 9;
/** tool_calls.duration_ns: not in the block, derived from start_time and end_time as the table's ALIAS does. */
export const DURATION = 10;
/** An array or map column empty in every row of the block (links, events, evidence: usually): `[]`, nothing read. */
export const EMPTY = 11;

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
export let strStart = 0;
export let strLen = 0;

/** Reads the Native string (varint length + bytes) at `at` into strStart/strLen; returns the position after it. */
export function readString(b: Buffer, at: number): number {
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

export function u32At(b: Buffer, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)) + b[at + 3]! * 16777216;
}

/** A UInt64 offset (cumulative array end) as a number: offsets stay far below 2^53. */
export function u64At(b: Buffer, at: number): number {
  return u32At(b, at) + u32At(b, at + 4) * 4294967296;
}

/** Position after `count` Native strings from `at`; natively when `native` (~1.7x faster in an ingest profile). */
function skipStrings(b: Buffer, at: number, count: number, native?: NativeRowHasher): number {
  if (native) {
    const end = native.skipStrings(b, at, count);
    if (end >= 0) return end;
    // Past the end: the loop below finds where, and says so.
  }
  for (let i = 0; i < count; i++) {
    const c = b[at]!;
    at = c < 0x80 ? at + 1 + c : readString(b, at);
  }
  if (!(at <= b.length)) throw new Error('native block: string past the end');
  return at;
}

/** Where one column's parts start; cursors advance row by row. */
export interface Column {
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
  /** Where the string cursor (STR: a, ARR_STR: b) or the key cursor (MAP: b, ARR_MAP: c) must stop: its part's end. */
  stop: number;
  /** Where the value cursor (MAP: c, ARR_MAP: d) must stop. The native walk checks both. */
  stop2: number;
}

export function column(layout: number, a = 0, b = 0, c = 0, d = 0): Column {
  return { declared: layout, layout, a, b, c, d, end: 0, end2: 0, stop: 0, stop2: 0 };
}

/** The numbers per column of the native hasher's descriptors (native-core/index.ts `hashRows`). */
const DESCRIPTOR_STRIDE = 7;

/** The native hasher's column descriptors: layout, cursors and stops of each column, in order. */
export function descriptorsOf(cols: readonly Column[]): Float64Array {
  const desc = new Float64Array(DESCRIPTOR_STRIDE * cols.length);
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!;
    desc.set([c.layout, c.a, c.b, c.c, c.d, c.stop, c.stop2], DESCRIPTOR_STRIDE * i);
  }
  return desc;
}

/** Parts of a column by layout, as Native lays them out (null map and values, offsets and elements, keys...). */
const PARTS: Record<number, number> = {
  [STR]: 1,
  [BOOL]: 1,
  [U64]: 1,
  [I64]: 1,
  [NULL_U64]: 2,
  [NULL_I64]: 2,
  [ARR_STR]: 2,
  [ARR_I64]: 2,
  [MAP]: 3,
  [ARR_MAP]: 4,
};

/**
 * A column from the extents its encoder reports (part p: `parts[2p]` to `parts[2p + 1]`): contiguous from the
 * header's end, every fixed-width part as long as the rows and offsets say. The string parts' ends are taken as
 * given, for the native walk to check its cursors stop there. Undefined when they do not fit: the column is walked.
 */
function fromParts(
  body: Buffer,
  layout: number,
  at: number,
  rows: number,
  parts: readonly number[],
  p: number,
): Column | undefined {
  const n = PARTS[layout]!;
  if (2 * (p + n) > parts.length) return undefined;
  let cursor = at;
  for (let k = 0; k < n; k++) {
    if (parts[2 * (p + k)] !== cursor || !(parts[2 * (p + k) + 1]! >= cursor)) return undefined;
    cursor = parts[2 * (p + k) + 1]!;
  }
  if (cursor > body.length) return undefined;
  const s = (k: number) => parts[2 * (p + k)]!;
  const e = (k: number) => parts[2 * (p + k) + 1]!;
  const counted = (k: number, count: number) => e(k) === s(k) + count;
  const lastEnd = (base: number) => (rows === 0 ? 0 : u64At(body, base + 8 * (rows - 1)));
  let c: Column;
  switch (layout) {
    case STR:
      c = column(layout, s(0));
      c.stop = e(0);
      return c;
    case BOOL:
      return counted(0, rows) ? column(layout, s(0)) : undefined;
    case U64:
    case I64:
      return counted(0, 8 * rows) ? column(layout, s(0)) : undefined;
    case NULL_U64:
    case NULL_I64:
      return counted(0, rows) && counted(1, 8 * rows) ? column(layout, s(0), s(1)) : undefined;
    case ARR_STR:
      if (!counted(0, 8 * rows)) return undefined;
      c = column(layout, s(0), s(1));
      c.stop = e(1);
      return c;
    case ARR_I64:
      return counted(0, 8 * rows) && counted(1, 8 * lastEnd(s(0))) ? column(layout, s(0), s(1)) : undefined;
    case MAP:
      if (!counted(0, 8 * rows)) return undefined;
      c = column(layout, s(0), s(1), s(2));
      c.stop = e(1);
      c.stop2 = e(2);
      return c;
    default:
      if (!counted(0, 8 * rows) || !counted(1, 8 * lastEnd(s(0)))) return undefined;
      c = column(layout, s(0), s(1), s(2), s(3));
      c.stop = e(2);
      c.stop2 = e(3);
      return c;
  }
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

const ZEROS = Buffer.alloc(64 * 1024);

/** Whether `len` bytes of `b` from `at` are all 0 (compared by the chunk, natively). */
function allZero(b: Buffer, at: number, len: number): boolean {
  for (let p = at; p < at + len; p += ZEROS.length) {
    const n = Math.min(ZEROS.length, at + len - p);
    if (b.compare(ZEROS, 0, n, p, p + n) !== 0) return false;
  }
  return true;
}

/** A block's columns, found. */
export interface BlockColumns {
  rows: number;
  byName: Map<string, Column>;
  /** Checks every array column's offsets are in order (throws naming the column); idempotent. */
  checkOffsets(): void;
}

/**
 * Parses the block's header and finds each column's parts (one pass over the string lengths). `offsets: false`
 * leaves the array offsets unchecked until `checkOffsets()`: for the native hasher, which checks each row's as it
 * walks; the JavaScript writer needs them checked first. `parts`: the extents the encoder reports (schema/batch.ts
 * `NativeBlock`), for the native hasher only: the string columns are then found without walking them, and the
 * walk checks each cursor stops where its part ends.
 */
export function columnsOf(
  body: Buffer,
  o: { offsets?: boolean; native?: NativeRowHasher; parts?: readonly number[] | undefined } = {},
): BlockColumns {
  const skip = (at: number, count: number) => skipStrings(body, at, count, o.native);
  const pending: [at: number, count: number, name: string][] = [];
  let part = 0;
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
    const given = o.parts && fromParts(body, layout, at, rows, o.parts, part);
    part += PARTS[layout]!;
    if (given) {
      byName.set(name, given);
      at = o.parts![2 * part - 1]!;
    } else {
      switch (layout) {
        case STR: {
          at = skip(at, rows);
          const c = column(layout, start);
          c.stop = at;
          byName.set(name, c);
          break;
        }
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
          at = skip(elements, lastEnd(start));
          const c = column(layout, start, elements);
          c.stop = at;
          byName.set(name, c);
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
          const values = skip(keys, pairs);
          at = skip(values, pairs);
          const c = column(layout, start, keys, values);
          c.stop = values;
          c.stop2 = at;
          byName.set(name, c);
          break;
        }
        default: {
          // ARR_MAP: outer offsets (rows), inner offsets (maps), keys, values.
          const inner = start + 8 * rows;
          const maps = lastEnd(start);
          const keys = inner + 8 * maps;
          const pairs = maps === 0 ? 0 : u64At(body, inner + 8 * (maps - 1));
          const values = skip(keys, pairs);
          at = skip(values, pairs);
          const c = column(layout, start, inner, keys, values);
          c.stop = values;
          c.stop2 = at;
          byName.set(name, c);
        }
      }
    }
    // Negated so that NaN (offsets read past a truncated body) is refused too.
    if (!(at <= body.length)) throw new Error(`native block: column ${name} runs past the end`);
    const col = byName.get(name)!;
    if (layout >= ARR_STR && lastEnd(start) === 0) {
      // Empty in every row: nothing walks its offsets, so they are checked here (in order and ending at 0: all 0).
      col.layout = EMPTY;
      if (!allZero(body, start, 8 * rows)) throw new Error(`native block: column ${name} has offsets out of order`);
    } else {
      if (layout >= ARR_STR) pending.push([start, rows, name]);
      if (layout === ARR_MAP) pending.push([start + 8 * rows, lastEnd(start), name]);
    }
  }
  const check = () => {
    for (const [start, count, name] of pending.splice(0)) checkOffsets(body, start, count, name);
  };
  if (o.offsets !== false) check();
  return { rows, byName, checkOffsets: check };
}

/** The spec's columns in canonical order, each bound to its column in the block. */
export function bind(spec: TableSpec, byName: Map<string, Column>): Column[] {
  return spec.columns.map(([name, type]) => {
    const col = byName.get(name);
    if (!col && spec === TOOL_CALLS_SPEC && name === 'duration_ns') return column(DURATION);
    if (!col) throw new Error(`native block for ${spec.table} has no column ${name}`);
    if (!ACCEPTS[type].includes(col.declared))
      throw new Error(`native block: ${spec.table}.${name} has the wrong type`);
    return col;
  });
}
