/**
 * The canonical form of a stored row, hashed by the writer when it stores the row and again by `verify` from what
 * the table holds. Both sides reduce every value to one canonical value per column type, so the hash does not depend
 * on how a value travelled (the writer's `'1700000000.123456789'` and ClickHouse's DateTime64 output are the same
 * instant; a map's key order does not matter). Version 1 hashes those values as JSON text, version 2 (written now)
 * in binary.
 *
 * The column lists, derived from the table definition (schema/tables.ts: sent and derived columns in table order),
 * are the same in versions 1 and 2: changing them changes every hash. A new column means a new version (keep the
 * old list to verify old records). Server-set columns (`ingested_at`/`IngestedAt`) are left out on purpose: ClickHouse sets
 * them, the writer never sent them.
 */
import * as crypto from 'node:crypto';
import { ByteBuffer } from '../platform/native/byte-buffer.ts';
import { SPANS, type TABLES, TOOL_CALL_WARNINGS, TOOL_CALLS } from '../schema/tables.ts';

/** The version the writer hashes rows in: 2 (binary). `verify` recomputes versions 1 (text) and 2. */
export const CANONICAL_VERSION = 2;
export const CANONICAL_VERSIONS: readonly number[] = [1, 2];

export type ColumnType = 'string' | 'bool' | 'uint' | 'nullable_int' | 'time' | 'strings' | 'times' | 'map' | 'maps';

export interface TableSpec {
  /** Table name (also the `row_tables` value of its rows in a digest record). */
  table: (typeof TABLES)[number]['name'];
  columns: readonly (readonly [name: string, type: ColumnType])[];
  tenant: string;
  /** The column that places a row in an hour. */
  time: string;
  /** The column that identifies a row in a digest (warnings: the span their rows belong to, grouped). */
  id: string;
}

/** The canonical type of a ClickHouse column type: how its values are reduced to one text form. */
export function canonicalTypeOf(type: string): ColumnType {
  const plain = type.replace(/LowCardinality\(([^()]*)\)/g, '$1').replace(/DateTime64\([^()]*\)/g, 'DateTime64');
  const known = CANONICAL_TYPES[plain];
  if (!known) throw new Error(`canonical: no canonical form for ClickHouse type ${type}`);
  return known;
}

const CANONICAL_TYPES: Readonly<Record<string, ColumnType>> = {
  String: 'string',
  Bool: 'bool',
  UInt64: 'uint',
  'Nullable(UInt64)': 'nullable_int',
  'Nullable(Int64)': 'nullable_int',
  DateTime64: 'time',
  'Array(String)': 'strings',
  'Array(DateTime64)': 'times',
  'Map(String, String)': 'map',
  'Array(Map(String, String))': 'maps',
};

/** The spec of a table: every column the writer sends or the table derives, in table order. */
function specOf(table: (typeof TABLES)[number]): TableSpec {
  return {
    table: table.name,
    tenant: table.tenant,
    time: table.time,
    id: table.id,
    columns: table.columns
      .filter((c) => c[3] !== 'server')
      .map(([name, type]) => [name, canonicalTypeOf(type)] as const),
  };
}

export const TOOL_CALLS_SPEC: TableSpec = specOf(TOOL_CALLS);
export const WARNINGS_SPEC: TableSpec = specOf(TOOL_CALL_WARNINGS);
export const SPANS_SPEC: TableSpec = specOf(SPANS);

export const TABLE_SPECS = [TOOL_CALLS_SPEC, WARNINGS_SPEC, SPANS_SPEC] as const;

// ------------------------------------------------------------------------------------------------ values

const NS_PER_S = 1_000_000_000n;

/**
 * An instant as unix nanoseconds (decimal). Accepts the writer's `'<seconds>.<fraction>'`, a bare integer of
 * nanoseconds (what verify selects), and ClickHouse's `'YYYY-MM-DD hh:mm:ss[.fraction]'` (UTC).
 */
export function instantNs(v: unknown): string {
  if (typeof v === 'number' && Number.isFinite(v)) return instantNs(v.toFixed(9));
  if (typeof v !== 'string') throw new TypeError(`not a time value: ${JSON.stringify(v)}`);
  let m = /^(\d+)\.(\d{1,9})$/.exec(v);
  // Seconds and fraction side by side are the nanoseconds; only leading zeros need to go (no bigint on the hot path).
  if (m) return stripZeros(`${m[1]}${m[2]!.padEnd(9, '0')}`);
  if (/^\d+$/.test(v)) return stripZeros(v);
  m = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?Z?$/.exec(v);
  if (m) {
    const sec = BigInt(Date.parse(`${m[1]}T${m[2]}Z`) / 1000);
    return (sec * NS_PER_S + BigInt((m[3] ?? '').padEnd(9, '0'))).toString();
  }
  throw new TypeError(`not a time value: ${JSON.stringify(v)}`);
}

function stripZeros(digits: string): string {
  let i = 0;
  while (i < digits.length - 1 && digits.charCodeAt(i) === 48) i++;
  return i === 0 ? digits : digits.slice(i);
}

function intText(v: unknown): string {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return String(v);
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v).toString();
  if (typeof v === 'string' && /^(0|-?[1-9]\d*)$/.test(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return BigInt(v).toString();
  if (typeof v === 'bigint') return v.toString();
  throw new TypeError(`not an integer: ${JSON.stringify(v)}`);
}

function mapEntries(v: unknown): [string, string][] {
  if (v === null || v === undefined) return [];
  if (typeof v !== 'object' || Array.isArray(v)) throw new TypeError(`not a map: ${JSON.stringify(v)}`);
  return Object.entries(v as Record<string, unknown>)
    .map(([k, x]): [string, string] => [k, String(x)])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

function arrayOf(v: unknown): unknown[] {
  if (v === null || v === undefined) return [];
  if (!Array.isArray(v)) throw new TypeError(`not an array: ${JSON.stringify(v)}`);
  return v;
}

/** One column value in canonical form. A missing value is the column type's default, as ClickHouse stores it. */
function canonicalValue(type: ColumnType, v: unknown): unknown {
  switch (type) {
    case 'string':
      return v === null || v === undefined ? '' : String(v);
    case 'bool':
      return v === true || v === 1 || v === '1' || v === 'true';
    case 'uint':
      return v === null || v === undefined ? '0' : intText(v);
    case 'nullable_int':
      return v === null || v === undefined ? null : intText(v);
    case 'time':
      return v === null || v === undefined ? '0' : instantNs(v);
    case 'strings':
      return arrayOf(v).map((x) => String(x));
    case 'times':
      return arrayOf(v).map(instantNs);
    case 'map':
      return mapEntries(v);
    case 'maps':
      return arrayOf(v).map(mapEntries);
  }
}

/** A row as the writer holds it (keyed by column name) -> its values in the spec's column order. */
export function valuesOf(spec: TableSpec, row: Readonly<Record<string, unknown>>): unknown[] {
  return spec.columns.map(([name]) => row[name]);
}

/** The canonical text of one row (values in the spec's column order): a JSON array of canonical values. */
export function canonicalRow(spec: TableSpec, values: readonly unknown[]): string {
  return JSON.stringify(spec.columns.map(([, type], i) => canonicalValue(type, values[i])));
}

// One-shot `crypto.hash` (Node >= 20.12) is ~25% cheaper per row than createHash; same bytes.
type OneShot = (algorithm: string, data: string | Uint8Array, encoding: 'hex') => string;
const oneShot: OneShot | undefined = (crypto as { hash?: OneShot }).hash;

/** SHA-256 in hex of a text (as UTF-8) or of bytes (audit/native-entries.ts hashes the canonical bytes it wrote). */
export function sha256(text: string | Uint8Array): string {
  return oneShot ? oneShot('sha256', text, 'hex') : crypto.createHash('sha256').update(text).digest('hex');
}

/**
 * Hash of one digest entry: a tool call or span row, or the group of warning rows of one span in one hour.
 * `rows` hold values in the spec's column order.
 */
export function entryHash(
  spec: TableSpec,
  rows: readonly (readonly unknown[])[],
  version: number = CANONICAL_VERSION,
): string {
  if (version === 2)
    return sha256(
      entryBytes(
        spec,
        rows.map((r) => canonicalValues(spec, r)),
      ),
    );
  if (version !== 1) throw new Error(`canonical: no version ${version}`);
  if (spec.table !== 'tool_call_warnings') return sha256(`${spec.table}\n${canonicalRow(spec, rows[0] ?? [])}`);
  // Warning rows have no id of their own: the group is hashed as the sorted list of its canonical rows.
  const lines = rows.map((r) => canonicalRow(spec, r)).sort();
  return sha256(`${spec.table}\n${lines.join('\n')}`);
}

// ------------------------------------------------------------------------------------------------ version 2

/** A row's canonical values (version 1's text is their JSON): the input of version 2's bytes. */
export function canonicalValues(spec: TableSpec, values: readonly unknown[]): unknown[] {
  return spec.columns.map(([, type], i) => canonicalValue(type, values[i]));
}

/**
 * Version 2 of an entry: the table line, then the row's canonical values in binary, as ClickHouse's RowBinary
 * writes them (strings: LEB128 length + UTF-8; 64-bit integers and times in nanoseconds: 8 bytes little-endian;
 * bool: 1 byte; nullable: 1 byte, 1 = null, else 0 and the value; arrays and maps: LEB128 count + elements; map
 * pairs key-sorted as version 1). The native walk copies most of it as the block holds it, where version 1 escaped
 * and printed every value (bench/audit-path.ts). Warning groups: each row's bytes, sorted, each after its LEB128
 * length.
 */
export function entryBytes(spec: TableSpec, rows: readonly (readonly unknown[])[]): Buffer {
  const prefix = Buffer.from(`${spec.table}\n`);
  if (spec.table !== 'tool_call_warnings') return Buffer.concat([prefix, rowBytes(spec, rows[0] ?? [])]);
  return groupBytes(
    prefix,
    rows.map((r) => rowBytes(spec, r)),
  );
}

/** A warning group's version 2 bytes from its rows' bytes: the table line, then each row sorted, after its length. */
export function groupBytes(prefix: Buffer, rows: readonly Buffer[]): Buffer {
  return Buffer.concat([prefix, ...[...rows].sort(Buffer.compare).flatMap((b) => [leb128(b.length), b])]);
}

/** One row's version 2 bytes, from its canonical values. */
export function rowBytes(spec: TableSpec, canonical: readonly unknown[]): Buffer {
  const out = new ByteBuffer(256);
  for (const [i, [, type]] of spec.columns.entries()) binaryValue(out, type, canonical[i]);
  return Buffer.from(out.buf.subarray(0, out.pos));
}

/** An unsigned LEB128 (RowBinary's lengths and counts). */
function leb128(n: number): Buffer {
  const out = new ByteBuffer(10);
  out.varint(n);
  return out.buf.subarray(0, out.pos);
}

function text(out: ByteBuffer, s: string): void {
  const n = Buffer.byteLength(s, 'utf8');
  out.varint(n);
  out.ensure(n);
  out.pos += out.buf.write(s, out.pos, 'utf8');
}

/** 8 bytes little-endian of a canonical integer text (unsigned 64-bit, or signed: two's complement). */
function int64(out: ByteBuffer, decimal: string): void {
  out.ensure(8);
  out.buf.writeBigUInt64LE(BigInt.asUintN(64, BigInt(decimal)), out.pos);
  out.pos += 8;
}

function binaryValue(out: ByteBuffer, type: ColumnType, v: unknown): void {
  switch (type) {
    case 'string':
      text(out, v as string);
      return;
    case 'bool':
      out.u8(v === true ? 1 : 0);
      return;
    case 'uint':
    case 'time':
      int64(out, v as string);
      return;
    case 'nullable_int':
      if (v === null) out.u8(1);
      else {
        out.u8(0);
        int64(out, v as string);
      }
      return;
    case 'strings':
      out.varint((v as string[]).length);
      for (const x of v as string[]) text(out, x);
      return;
    case 'times':
      out.varint((v as string[]).length);
      for (const x of v as string[]) int64(out, x);
      return;
    case 'map':
      mapBytes(out, v as [string, string][]);
      return;
    case 'maps':
      out.varint((v as [string, string][][]).length);
      for (const m of v as [string, string][][]) mapBytes(out, m);
      return;
  }
}

function mapBytes(out: ByteBuffer, pairs: readonly [string, string][]): void {
  out.varint(pairs.length);
  for (const [k, x] of pairs) {
    text(out, k);
    text(out, x);
  }
}

/** The hour (unix seconds, floored) of a row's time value. */
export function hourOf(v: unknown): number {
  const ns = BigInt(instantNs(v));
  return Number((ns / (3600n * NS_PER_S)) * 3600n);
}

/**
 * The select list verify uses, in the spec's column order (read as JSONCompactEachRow arrays, so no alias can
 * shadow a column in WHERE): times as integer nanoseconds, 64-bit integers as text, everything else as stored.
 */
export function selectList(spec: TableSpec): string {
  return spec.columns
    .map(([name, type]) => {
      const col = `\`${name}\``;
      switch (type) {
        case 'time':
          return `toString(toUnixTimestamp64Nano(${col}))`;
        case 'times':
          return `arrayMap(t -> toString(toUnixTimestamp64Nano(t)), ${col})`;
        case 'uint':
        case 'nullable_int':
          return `toString(${col})`;
        default:
          return col;
      }
    })
    .join(', ');
}

/**
 * The SQL expression of a row's version 2 bytes after the table line: ClickHouse's own `formatRow('RowBinary', ...)`
 * of the spec's columns, maps key-sorted and times as Int64 nanoseconds. Lets verify have the server hash the rows
 * it stores; test/integration/audit/canonical-v2.test.ts holds it to `rowBytes`.
 */
export function rowBinarySql(spec: TableSpec): string {
  const list = spec.columns.map(([name, type]) => {
    const col = `\`${name}\``;
    switch (type) {
      case 'map':
        return `mapSort(${col})`;
      case 'maps':
        return `arrayMap(m -> mapSort(m), ${col})`;
      case 'time':
        return `toUnixTimestamp64Nano(${col})`;
      case 'times':
        return `arrayMap(t -> toUnixTimestamp64Nano(t), ${col})`;
      default:
        return col;
    }
  });
  return `formatRow('RowBinary', ${list.join(', ')})`;
}

/** Index of a column in the spec (for the id and time of a row read as an array). */
export function columnIndex(spec: TableSpec, name: string): number {
  const i = spec.columns.findIndex(([n]) => n === name);
  if (i < 0) throw new Error(`${spec.table} spec has no column ${name}`);
  return i;
}
