/**
 * The rows the ingest writes, one interface per table, keyed by column name (see schema/migrations for what
 * each column means). Values are already in the form ClickHouse's JSON input formats take:
 * - timestamps (`DateTime64(9)`) are unix seconds with nine decimals as a string, e.g. `'1700000000.123456789'`,
 *   exact to the nanosecond (a JS number cannot hold nanoseconds since 1970);
 * - 64-bit integers that may exceed 2^53 are decimal strings; durations are nanoseconds as numbers (tool_calls'
 *   derived duration_ns: a decimal string from 2^53 on, to stay exact);
 * - maps are plain objects of strings.
 * The column lists fix the order the writer encodes them in (JSONCompactEachRow).
 */

/** A DateTime64(9) value: unix seconds with nine decimals. */
import type { NativeType } from './native.ts';

export type NanoTime = string;
export type StringMap = Record<string, string>;

export interface ToolCallRow {
  tenant: string;
  session_id: string;
  /** Decimal string; null when the emitter sent no sequence number. */
  sequence: string | null;
  start_time: NanoTime;
  end_time: NanoTime;
  /**
   * Not inserted: tool_calls derives it from start_time and end_time (an ALIAS since migration 0006, see
   * `derivedDurationNs`). The row carries it for the digest (audit/canonical.ts hashes it).
   */
  duration_ns: number | string;
  trace_id: string;
  span_id: string;
  parent_span_id: string;
  trace_state: string;
  span_name: string;
  span_kind: string;
  tool_call_id: string;
  tool_name: string;
  agent_name: string;
  agent_id: string;
  service_name: string;
  scope_name: string;
  scope_version: string;
  effect: string;
  span_status_code: string;
  span_status_message: string;
  result_status: string;
  result_complete: boolean;
  complete_reported: boolean;
  result_reasons: string[];
  result_item_count: string | null;
  result_continuation: string;
  scope_resource: string;
  scope_visibility: string;
  scope_snapshot: string;
  warnings: string[];
  mutation_basis: string;
  mutation_target_count: string | null;
  evidence_snapshots: string[];
  evidence_call_ids: string[];
  guard_decision: string;
  attributes: StringMap;
  resource_attributes: StringMap;
  event_times: NanoTime[];
  event_names: string[];
  event_attributes: StringMap[];
  link_trace_ids: string[];
  link_span_ids: string[];
  link_trace_states: string[];
  link_attributes: StringMap[];
}

export interface WarningRow {
  tenant: string;
  time: NanoTime;
  code: string;
  source: string;
  message: string;
  tool_name: string;
  agent_name: string;
  session_id: string;
  trace_id: string;
  span_id: string;
}

/** A non-tool span, shaped like the OpenTelemetry Collector ClickHouse exporter's `otel_traces`. */
export interface SpanRow {
  Tenant: string;
  Timestamp: NanoTime;
  TraceId: string;
  SpanId: string;
  ParentSpanId: string;
  TraceState: string;
  SpanName: string;
  SpanKind: string;
  ServiceName: string;
  ResourceAttributes: StringMap;
  ScopeName: string;
  ScopeVersion: string;
  SpanAttributes: StringMap;
  Duration: number;
  StatusCode: string;
  StatusMessage: string;
  'Events.Timestamp': NanoTime[];
  'Events.Name': string[];
  'Events.Attributes': StringMap[];
  'Links.TraceId': string[];
  'Links.SpanId': string[];
  'Links.TraceState': string[];
  'Links.Attributes': StringMap[];
}

/** The inserted columns (duration_ns is an ALIAS: ClickHouse refuses a value for it). */
export const TOOL_CALL_COLUMNS = [
  'tenant',
  'session_id',
  'sequence',
  'start_time',
  'end_time',
  'trace_id',
  'span_id',
  'parent_span_id',
  'trace_state',
  'span_name',
  'span_kind',
  'tool_call_id',
  'tool_name',
  'agent_name',
  'agent_id',
  'service_name',
  'scope_name',
  'scope_version',
  'effect',
  'span_status_code',
  'span_status_message',
  'result_status',
  'result_complete',
  'complete_reported',
  'result_reasons',
  'result_item_count',
  'result_continuation',
  'scope_resource',
  'scope_visibility',
  'scope_snapshot',
  'warnings',
  'mutation_basis',
  'mutation_target_count',
  'evidence_snapshots',
  'evidence_call_ids',
  'guard_decision',
  'attributes',
  'resource_attributes',
  'event_times',
  'event_names',
  'event_attributes',
  'link_trace_ids',
  'link_span_ids',
  'link_trace_states',
  'link_attributes',
] as const satisfies readonly (keyof ToolCallRow)[];

/** Row fields tool_calls computes itself (ALIAS columns): hashed by the digest, never inserted. */
export const TOOL_CALL_DERIVED = ['duration_ns'] as const satisfies readonly (keyof ToolCallRow)[];

export const WARNING_COLUMNS = [
  'tenant',
  'time',
  'code',
  'source',
  'message',
  'tool_name',
  'agent_name',
  'session_id',
  'trace_id',
  'span_id',
] as const satisfies readonly (keyof WarningRow)[];

export const SPAN_COLUMNS = [
  'Tenant',
  'Timestamp',
  'TraceId',
  'SpanId',
  'ParentSpanId',
  'TraceState',
  'SpanName',
  'SpanKind',
  'ServiceName',
  'ResourceAttributes',
  'ScopeName',
  'ScopeVersion',
  'SpanAttributes',
  'Duration',
  'StatusCode',
  'StatusMessage',
  'Events.Timestamp',
  'Events.Name',
  'Events.Attributes',
  'Links.TraceId',
  'Links.SpanId',
  'Links.TraceState',
  'Links.Attributes',
] as const satisfies readonly (keyof SpanRow)[];

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

/** Column types for the Native encoder (ingest/native.ts), in the order of the column lists above. */
export const TOOL_CALL_NATIVE = [
  ['tenant', 'String'],
  ['session_id', 'String'],
  ['sequence', 'Nullable(UInt64)'],
  ['start_time', 'DateTime64'],
  ['end_time', 'DateTime64'],
  ['trace_id', 'String'],
  ['span_id', 'String'],
  ['parent_span_id', 'String'],
  ['trace_state', 'String'],
  ['span_name', 'String'],
  ['span_kind', 'String'],
  ['tool_call_id', 'String'],
  ['tool_name', 'String'],
  ['agent_name', 'String'],
  ['agent_id', 'String'],
  ['service_name', 'String'],
  ['scope_name', 'String'],
  ['scope_version', 'String'],
  ['effect', 'String'],
  ['span_status_code', 'String'],
  ['span_status_message', 'String'],
  ['result_status', 'String'],
  ['result_complete', 'Bool'],
  ['complete_reported', 'Bool'],
  ['result_reasons', 'Array(String)'],
  ['result_item_count', 'Nullable(Int64)'],
  ['result_continuation', 'String'],
  ['scope_resource', 'String'],
  ['scope_visibility', 'String'],
  ['scope_snapshot', 'String'],
  ['warnings', 'Array(String)'],
  ['mutation_basis', 'String'],
  ['mutation_target_count', 'Nullable(Int64)'],
  ['evidence_snapshots', 'Array(String)'],
  ['evidence_call_ids', 'Array(String)'],
  ['guard_decision', 'String'],
  ['attributes', 'Map'],
  ['resource_attributes', 'Map'],
  ['event_times', 'Array(DateTime64)'],
  ['event_names', 'Array(String)'],
  ['event_attributes', 'Array(Map)'],
  ['link_trace_ids', 'Array(String)'],
  ['link_span_ids', 'Array(String)'],
  ['link_trace_states', 'Array(String)'],
  ['link_attributes', 'Array(Map)'],
] as const satisfies readonly (readonly [keyof ToolCallRow, NativeType])[];

export const WARNING_NATIVE = [
  ['tenant', 'String'],
  ['time', 'DateTime64'],
  ['code', 'String'],
  ['source', 'String'],
  ['message', 'String'],
  ['tool_name', 'String'],
  ['agent_name', 'String'],
  ['session_id', 'String'],
  ['trace_id', 'String'],
  ['span_id', 'String'],
] as const satisfies readonly (readonly [keyof WarningRow, NativeType])[];

export const SPAN_NATIVE = [
  ['Tenant', 'String'],
  ['Timestamp', 'DateTime64'],
  ['TraceId', 'String'],
  ['SpanId', 'String'],
  ['ParentSpanId', 'String'],
  ['TraceState', 'String'],
  ['SpanName', 'String'],
  ['SpanKind', 'String'],
  ['ServiceName', 'String'],
  ['ResourceAttributes', 'Map'],
  ['ScopeName', 'String'],
  ['ScopeVersion', 'String'],
  ['SpanAttributes', 'Map'],
  ['Duration', 'UInt64'],
  ['StatusCode', 'String'],
  ['StatusMessage', 'String'],
  ['Events.Timestamp', 'Array(DateTime64)'],
  ['Events.Name', 'Array(String)'],
  ['Events.Attributes', 'Array(Map)'],
  ['Links.TraceId', 'Array(String)'],
  ['Links.SpanId', 'Array(String)'],
  ['Links.TraceState', 'Array(String)'],
  ['Links.Attributes', 'Array(Map)'],
] as const satisfies readonly (readonly [keyof SpanRow, NativeType])[];
