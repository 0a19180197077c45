/**
 * The one definition of the tables the ingest writes: each column's name, ClickHouse type and codec, as the
 * migrations leave them (test/integration/schema/table-definition.test.ts holds the migrated tables against it).
 * The row types, the writer's column lists, the Native block layouts (schema/rows.ts), the canonical audit text
 * (audit/canonical.ts) and the readers' row schemas (schema/readers.ts) are derived from it; a new column is a
 * migration plus one line here.
 *
 * Column order is the table's (system.columns position). Roles:
 * - `sent`: the writer inserts it and the audit digest hashes it;
 * - `derived`: an ALIAS the table computes (never inserted, hashed from the writer's own value);
 * - `server`: set by ClickHouse on insert (DEFAULT), neither sent nor hashed.
 * `codec` is the column's CODEC(...) list as system.columns prints it, empty for the default (LZ4).
 */

export type ColumnRole = 'sent' | 'derived' | 'server';

export type ColumnDefinition = readonly [name: string, type: string, codec: string, role: ColumnRole];

export interface TableDefinition {
  readonly name: string;
  /** The tenant column (every read is scoped by it). */
  readonly tenant: string;
  /** The column that places a row in time (partitions, audit hours). */
  readonly time: string;
  /** The column that identifies a row (warnings: the span they belong to). */
  readonly id: string;
  readonly columns: readonly ColumnDefinition[];
}

export const TOOL_CALLS = {
  name: 'tool_calls',
  tenant: 'tenant',
  time: 'start_time',
  id: 'span_id',
  columns: [
    ['tenant', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['session_id', 'String', 'ZSTD(6)', 'sent'],
    ['sequence', 'Nullable(UInt64)', 'T64, ZSTD(1)', 'sent'],
    ['start_time', "DateTime64(9, 'UTC')", 'Delta(8), T64, ZSTD(1)', 'sent'],
    ['end_time', "DateTime64(9, 'UTC')", 'Delta(8), T64, ZSTD(1)', 'sent'],
    ['duration_ns', 'UInt64', '', 'derived'],
    ['trace_id', 'String', 'ZSTD(1)', 'sent'],
    ['span_id', 'String', 'ZSTD(3)', 'sent'],
    ['parent_span_id', 'String', 'ZSTD(3)', 'sent'],
    ['trace_state', 'String', 'ZSTD(1)', 'sent'],
    ['span_name', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['span_kind', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['tool_call_id', 'String', 'ZSTD(1)', 'sent'],
    ['tool_name', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['agent_name', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['agent_id', 'String', 'ZSTD(1)', 'sent'],
    ['service_name', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['scope_name', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['scope_version', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['effect', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['span_status_code', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['span_status_message', 'String', 'ZSTD(1)', 'sent'],
    ['result_status', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['result_complete', 'Bool', 'ZSTD(1)', 'sent'],
    ['complete_reported', 'Bool', 'ZSTD(1)', 'sent'],
    ['result_reasons', 'Array(LowCardinality(String))', 'ZSTD(1)', 'sent'],
    ['result_item_count', 'Nullable(Int64)', 'T64, ZSTD(1)', 'sent'],
    ['result_continuation', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['scope_resource', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['scope_visibility', 'String', 'ZSTD(1)', 'sent'],
    ['scope_snapshot', 'String', 'ZSTD(1)', 'sent'],
    ['warnings', 'Array(LowCardinality(String))', 'ZSTD(1)', 'sent'],
    ['mutation_basis', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['mutation_target_count', 'Nullable(Int64)', 'T64, ZSTD(1)', 'sent'],
    ['evidence_snapshots', 'Array(String)', 'ZSTD(1)', 'sent'],
    ['evidence_call_ids', 'Array(String)', 'ZSTD(1)', 'sent'],
    ['guard_decision', 'LowCardinality(String)', 'ZSTD(1)', 'sent'],
    ['attributes', 'Map(LowCardinality(String), String)', 'ZSTD(3)', 'sent'],
    ['resource_attributes', 'Map(LowCardinality(String), String)', 'ZSTD(3)', 'sent'],
    ['event_times', "Array(DateTime64(9, 'UTC'))", 'ZSTD(1)', 'sent'],
    ['event_names', 'Array(LowCardinality(String))', 'ZSTD(1)', 'sent'],
    ['event_attributes', 'Array(Map(LowCardinality(String), String))', 'ZSTD(3)', 'sent'],
    ['link_trace_ids', 'Array(String)', 'ZSTD(1)', 'sent'],
    ['link_span_ids', 'Array(String)', 'ZSTD(1)', 'sent'],
    ['link_trace_states', 'Array(String)', 'ZSTD(1)', 'sent'],
    ['link_attributes', 'Array(Map(LowCardinality(String), String))', 'ZSTD(3)', 'sent'],
    ['ingested_at', "DateTime64(3, 'UTC')", 'Delta(8), ZSTD(1)', 'server'],
  ],
} as const satisfies TableDefinition;

export const TOOL_CALL_WARNINGS = {
  name: 'tool_call_warnings',
  tenant: 'tenant',
  time: 'time',
  id: 'span_id',
  columns: [
    ['tenant', 'LowCardinality(String)', '', 'sent'],
    ['time', "DateTime64(9, 'UTC')", '', 'sent'],
    ['code', 'LowCardinality(String)', '', 'sent'],
    ['source', 'String', '', 'sent'],
    ['message', 'String', '', 'sent'],
    ['tool_name', 'LowCardinality(String)', '', 'sent'],
    ['agent_name', 'LowCardinality(String)', '', 'sent'],
    ['session_id', 'String', '', 'sent'],
    ['trace_id', 'String', '', 'sent'],
    ['span_id', 'String', '', 'sent'],
    ['ingested_at', "DateTime64(3, 'UTC')", '', 'server'],
  ],
} as const satisfies TableDefinition;

export const SPANS = {
  name: 'spans',
  tenant: 'Tenant',
  time: 'Timestamp',
  id: 'SpanId',
  columns: [
    ['Tenant', 'LowCardinality(String)', '', 'sent'],
    ['Timestamp', "DateTime64(9, 'UTC')", '', 'sent'],
    ['TraceId', 'String', '', 'sent'],
    ['SpanId', 'String', '', 'sent'],
    ['ParentSpanId', 'String', '', 'sent'],
    ['TraceState', 'String', '', 'sent'],
    ['SpanName', 'LowCardinality(String)', '', 'sent'],
    ['SpanKind', 'LowCardinality(String)', '', 'sent'],
    ['ServiceName', 'LowCardinality(String)', '', 'sent'],
    ['ResourceAttributes', 'Map(LowCardinality(String), String)', '', 'sent'],
    ['ScopeName', 'String', '', 'sent'],
    ['ScopeVersion', 'String', '', 'sent'],
    ['SpanAttributes', 'Map(LowCardinality(String), String)', '', 'sent'],
    ['Duration', 'UInt64', '', 'sent'],
    ['StatusCode', 'LowCardinality(String)', '', 'sent'],
    ['StatusMessage', 'String', '', 'sent'],
    ['Events.Timestamp', "Array(DateTime64(9, 'UTC'))", '', 'sent'],
    ['Events.Name', 'Array(LowCardinality(String))', '', 'sent'],
    ['Events.Attributes', 'Array(Map(LowCardinality(String), String))', '', 'sent'],
    ['Links.TraceId', 'Array(String)', '', 'sent'],
    ['Links.SpanId', 'Array(String)', '', 'sent'],
    ['Links.TraceState', 'Array(String)', '', 'sent'],
    ['Links.Attributes', 'Array(Map(LowCardinality(String), String))', '', 'sent'],
    ['IngestedAt', "DateTime64(3, 'UTC')", '', 'server'],
  ],
} as const satisfies TableDefinition;

export const TABLES = [TOOL_CALLS, TOOL_CALL_WARNINGS, SPANS] as const;
