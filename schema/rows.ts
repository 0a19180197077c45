/**
 * The rows the ingest writes, derived from the table definition (schema/tables.ts): one type per table keyed by
 * column name, the columns the writer sends in table order, and their Native block types. Values are already in
 * the form ClickHouse's input formats take:
 * - timestamps (`DateTime64(9)`) are unix seconds with nine decimals as a string, e.g. `'1700000000.123456789'`,
 *   exact to the nanosecond (a JS number cannot hold nanoseconds since 1970);
 * - 64-bit integers are numbers, or decimal strings from 2^53 on (tool_calls' derived duration_ns) to stay exact;
 *   nullable ones are decimal strings or null;
 * - maps are plain objects of strings.
 */
import type { NanoTime, NativeType, StringMap } from '../platform/native/encode.ts';
import { SPANS, type TableDefinition, TOOL_CALL_WARNINGS, TOOL_CALLS } from './tables.ts';

export type { NanoTime, StringMap };

type Column<T extends TableDefinition> = T['columns'][number];
type NamesOf<T extends TableDefinition, Role extends string> = Extract<
  Column<T>,
  readonly [string, string, string, Role]
>[0];

/** The JS value of a ClickHouse type, as the writer holds it. */
type ValueOf<Type extends string> = Type extends `Nullable(${string})`
  ? string | null
  : Type extends `Array(Map(${string}`
    ? StringMap[]
    : Type extends `Array(DateTime64${string}`
      ? NanoTime[]
      : Type extends `Array(${string}`
        ? string[]
        : Type extends `Map(${string}`
          ? StringMap
          : Type extends `DateTime64${string}`
            ? NanoTime
            : Type extends 'Bool'
              ? boolean
              : Type extends 'UInt64' | 'Int64'
                ? number | string
                : string;

/** A row of table T: every column the writer sends or derives (server-set columns are ClickHouse's). */
export type RowOf<T extends TableDefinition> = {
  -readonly [C in Column<T> as C[3] extends 'server' ? never : C[0]]: ValueOf<C[1]>;
};

export type ToolCallRow = RowOf<typeof TOOL_CALLS>;
export type WarningRow = RowOf<typeof TOOL_CALL_WARNINGS>;
/** A non-tool span, shaped like the OpenTelemetry Collector ClickHouse exporter's `otel_traces`. */
export type SpanRow = RowOf<typeof SPANS>;

/** The columns the writer inserts, in table order (ALIAS and DEFAULT columns are the table's own). */
export function sentColumns<T extends TableDefinition>(table: T): NamesOf<T, 'sent'>[] {
  return table.columns.filter((c) => c[3] === 'sent').map((c) => c[0] as NamesOf<T, 'sent'>);
}

/** The Native block type of a ClickHouse column type: the plain type, ClickHouse converts on insert. */
export function nativeTypeOf(type: string): NativeType {
  const plain = type
    .replace(/LowCardinality\(([^()]*)\)/g, '$1')
    .replace(/DateTime64\([^()]*\)/g, 'DateTime64')
    .replace(/Map\(String, String\)/g, 'Map');
  const known = NATIVE_TYPES.find((t) => t === plain);
  if (!known) throw new Error(`schema: no Native encoding for ClickHouse type ${type}`);
  return known;
}

const NATIVE_TYPES: readonly NativeType[] = [
  'String',
  'UInt64',
  'Int64',
  'Bool',
  'DateTime64',
  'Nullable(UInt64)',
  'Nullable(Int64)',
  'Array(String)',
  'Array(DateTime64)',
  'Map',
  'Array(Map)',
];

/** [column, Native type] of the columns the writer inserts, in table order. */
export function nativeColumns<T extends TableDefinition>(table: T): (readonly [NamesOf<T, 'sent'>, NativeType])[] {
  return table.columns
    .filter((c) => c[3] === 'sent')
    .map((c) => [c[0] as NamesOf<T, 'sent'>, nativeTypeOf(c[1])] as const);
}

export const TOOL_CALL_COLUMNS = sentColumns(TOOL_CALLS);
/** Row fields tool_calls computes itself (ALIAS columns): hashed by the digest, never inserted. */
export const TOOL_CALL_DERIVED = TOOL_CALLS.columns
  .filter((c) => c[3] === 'derived')
  .map((c) => c[0] as NamesOf<typeof TOOL_CALLS, 'derived'>);
export const WARNING_COLUMNS = sentColumns(TOOL_CALL_WARNINGS);
export const SPAN_COLUMNS = sentColumns(SPANS);

/** Column types for the Native encoder (platform/native/encode.ts), in the order of the column lists above. */
export const TOOL_CALL_NATIVE = nativeColumns(TOOL_CALLS);
export const WARNING_NATIVE = nativeColumns(TOOL_CALL_WARNINGS);
export const SPAN_NATIVE = nativeColumns(SPANS);

/** The rows of one batch, per table. */
export interface Rows {
  toolCalls: ToolCallRow[];
  warnings: WarningRow[];
  spans: SpanRow[];
}

export function emptyRows(): Rows {
  return { toolCalls: [], warnings: [], spans: [] };
}

export function rowCount(rows: Rows): number {
  return rows.toolCalls.length + rows.warnings.length + rows.spans.length;
}
