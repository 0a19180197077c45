/** Where each column's byte streams sit in a partition's arena, derived from the schema's Native layouts. */
import type { NativeType } from '../../platform/native/encode.ts';
import {
  SPAN_NATIVE as SPAN_NATIVE$,
  TOOL_CALL_NATIVE as TOOL_CALL_NATIVE$,
  WARNING_NATIVE as WARNING_NATIVE$,
} from '../../schema/rows.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const SPAN_NATIVE = SPAN_NATIVE$;
const TOOL_CALL_NATIVE = TOOL_CALL_NATIVE$;
const WARNING_NATIVE = WARNING_NATIVE$;

export type StreamKind = 'bytes' | 'counts';

export interface ColumnLayout {
  name: string;
  type: NativeType;
  /** Index of its first stream in the arena. */
  first: number;
  kinds: StreamKind[];
}

/** The streams of one Native column, in the order Native lays them out. */
function streamKinds(type: NativeType): StreamKind[] {
  switch (type) {
    case 'Nullable(UInt64)':
    case 'Nullable(Int64)':
      return ['bytes', 'bytes'];
    case 'Array(String)':
    case 'Array(DateTime64)':
      return ['counts', 'bytes'];
    case 'Map':
      return ['counts', 'bytes', 'bytes'];
    case 'Array(Map)':
      return ['counts', 'counts', 'bytes', 'bytes'];
    default:
      return ['bytes'];
  }
}

export interface TableLayout {
  columns: ColumnLayout[];
  /** The first stream of a column, by name. */
  s(name: string): number;
}

let streamCount = 0;

function layout(schema: readonly (readonly [string, NativeType])[]): TableLayout {
  const columns: ColumnLayout[] = [];
  const byName = new Map<string, number>();
  for (const [name, type] of schema) {
    const kinds = streamKinds(type);
    columns.push({ name, type, first: streamCount, kinds });
    byName.set(name, streamCount);
    streamCount += kinds.length;
  }
  return {
    columns,
    s(name) {
      const i = byName.get(name);
      if (i === undefined) throw new Error(`ingest/columns: no column ${name}`);
      return i;
    },
  };
}

export const TOOL_CALLS = layout(TOOL_CALL_NATIVE);
export const WARNINGS = layout(WARNING_NATIVE);
export const SPANS = layout(SPAN_NATIVE);
export const STREAMS = streamCount;

// Stream indexes of the columns the decoder writes (a column's further streams follow its first).
export const TC = {
  tenant: TOOL_CALLS.s('tenant'),
  session_id: TOOL_CALLS.s('session_id'),
  sequence: TOOL_CALLS.s('sequence'),
  start_time: TOOL_CALLS.s('start_time'),
  end_time: TOOL_CALLS.s('end_time'),
  trace_id: TOOL_CALLS.s('trace_id'),
  span_id: TOOL_CALLS.s('span_id'),
  parent_span_id: TOOL_CALLS.s('parent_span_id'),
  trace_state: TOOL_CALLS.s('trace_state'),
  span_name: TOOL_CALLS.s('span_name'),
  span_kind: TOOL_CALLS.s('span_kind'),
  service_name: TOOL_CALLS.s('service_name'),
  scope_name: TOOL_CALLS.s('scope_name'),
  scope_version: TOOL_CALLS.s('scope_version'),
  span_status_code: TOOL_CALLS.s('span_status_code'),
  span_status_message: TOOL_CALLS.s('span_status_message'),
  result_complete: TOOL_CALLS.s('result_complete'),
  complete_reported: TOOL_CALLS.s('complete_reported'),
  result_item_count: TOOL_CALLS.s('result_item_count'),
  mutation_target_count: TOOL_CALLS.s('mutation_target_count'),
  attributes: TOOL_CALLS.s('attributes'),
  resource_attributes: TOOL_CALLS.s('resource_attributes'),
  event_times: TOOL_CALLS.s('event_times'),
  event_names: TOOL_CALLS.s('event_names'),
  event_attributes: TOOL_CALLS.s('event_attributes'),
  link_trace_ids: TOOL_CALLS.s('link_trace_ids'),
  link_span_ids: TOOL_CALLS.s('link_span_ids'),
  link_trace_states: TOOL_CALLS.s('link_trace_states'),
  link_attributes: TOOL_CALLS.s('link_attributes'),
};
export const W = {
  tenant: WARNINGS.s('tenant'),
  time: WARNINGS.s('time'),
  code: WARNINGS.s('code'),
  source: WARNINGS.s('source'),
  message: WARNINGS.s('message'),
  tool_name: WARNINGS.s('tool_name'),
  agent_name: WARNINGS.s('agent_name'),
  session_id: WARNINGS.s('session_id'),
  trace_id: WARNINGS.s('trace_id'),
  span_id: WARNINGS.s('span_id'),
};
export const SP = {
  Tenant: SPANS.s('Tenant'),
  Timestamp: SPANS.s('Timestamp'),
  TraceId: SPANS.s('TraceId'),
  SpanId: SPANS.s('SpanId'),
  ParentSpanId: SPANS.s('ParentSpanId'),
  TraceState: SPANS.s('TraceState'),
  SpanName: SPANS.s('SpanName'),
  SpanKind: SPANS.s('SpanKind'),
  ServiceName: SPANS.s('ServiceName'),
  ResourceAttributes: SPANS.s('ResourceAttributes'),
  ScopeName: SPANS.s('ScopeName'),
  ScopeVersion: SPANS.s('ScopeVersion'),
  SpanAttributes: SPANS.s('SpanAttributes'),
  Duration: SPANS.s('Duration'),
  StatusCode: SPANS.s('StatusCode'),
  StatusMessage: SPANS.s('StatusMessage'),
  EventsTimestamp: SPANS.s('Events.Timestamp'),
  EventsName: SPANS.s('Events.Name'),
  EventsAttributes: SPANS.s('Events.Attributes'),
  LinksTraceId: SPANS.s('Links.TraceId'),
  LinksSpanId: SPANS.s('Links.SpanId'),
  LinksTraceState: SPANS.s('Links.TraceState'),
  LinksAttributes: SPANS.s('Links.Attributes'),
};
