/**
 * Wire tags, `(field << 3) | wire type`, of the OTLP trace fields the hand-written reader (read.ts) and the
 * collector's assembler read and write, named after the fields of OpenTelemetry's .proto files
 * (testkit/reference/otlp-proto-trace.json). Wire types: 0 varint, 1 fixed64, 2 length-delimited, 5 fixed32.
 */

// ExportTraceServiceRequest (collector/trace/v1/trace_service.proto)
export const T_RESOURCE_SPANS = (1 << 3) | 2;

// ResourceSpans
export const T_RESOURCE_SPANS_RESOURCE = (1 << 3) | 2;
export const T_RESOURCE_SPANS_SCOPE_SPANS = (2 << 3) | 2;
export const T_RESOURCE_SPANS_SCHEMA_URL = (3 << 3) | 2;

// Resource (resource/v1/resource.proto); entity_refs (3) is outside the reader's subset
export const T_RESOURCE_ATTRIBUTES = (1 << 3) | 2;
export const T_RESOURCE_DROPPED_ATTRIBUTES_COUNT = (2 << 3) | 0;

// ScopeSpans
export const T_SCOPE_SPANS_SCOPE = (1 << 3) | 2;
export const T_SCOPE_SPANS_SPANS = (2 << 3) | 2;
export const T_SCOPE_SPANS_SCHEMA_URL = (3 << 3) | 2;

// InstrumentationScope (common/v1/common.proto)
export const T_SCOPE_NAME = (1 << 3) | 2;
export const T_SCOPE_VERSION = (2 << 3) | 2;
export const T_SCOPE_ATTRIBUTES = (3 << 3) | 2;
export const T_SCOPE_DROPPED_ATTRIBUTES_COUNT = (4 << 3) | 0;

// Span
export const T_SPAN_TRACE_ID = (1 << 3) | 2;
export const T_SPAN_SPAN_ID = (2 << 3) | 2;
export const T_SPAN_TRACE_STATE = (3 << 3) | 2;
export const T_SPAN_PARENT_SPAN_ID = (4 << 3) | 2;
export const T_SPAN_NAME = (5 << 3) | 2;
export const T_SPAN_KIND = (6 << 3) | 0;
export const T_SPAN_START_TIME_UNIX_NANO = (7 << 3) | 1;
export const T_SPAN_END_TIME_UNIX_NANO = (8 << 3) | 1;
export const T_SPAN_ATTRIBUTES = (9 << 3) | 2;
export const T_SPAN_DROPPED_ATTRIBUTES_COUNT = (10 << 3) | 0;
export const T_SPAN_EVENTS = (11 << 3) | 2;
export const T_SPAN_DROPPED_EVENTS_COUNT = (12 << 3) | 0;
export const T_SPAN_LINKS = (13 << 3) | 2;
export const T_SPAN_DROPPED_LINKS_COUNT = (14 << 3) | 0;
export const T_SPAN_STATUS = (15 << 3) | 2;
export const T_SPAN_FLAGS = (16 << 3) | 5;

// Span.Event
export const T_EVENT_TIME_UNIX_NANO = (1 << 3) | 1;
export const T_EVENT_NAME = (2 << 3) | 2;
export const T_EVENT_ATTRIBUTES = (3 << 3) | 2;
export const T_EVENT_DROPPED_ATTRIBUTES_COUNT = (4 << 3) | 0;

// Span.Link
export const T_LINK_TRACE_ID = (1 << 3) | 2;
export const T_LINK_SPAN_ID = (2 << 3) | 2;
export const T_LINK_TRACE_STATE = (3 << 3) | 2;
export const T_LINK_ATTRIBUTES = (4 << 3) | 2;
export const T_LINK_DROPPED_ATTRIBUTES_COUNT = (5 << 3) | 0;
export const T_LINK_FLAGS = (6 << 3) | 5;

// Status
export const T_STATUS_MESSAGE = (2 << 3) | 2;
export const T_STATUS_CODE = (3 << 3) | 0;

// KeyValue (common/v1/common.proto)
export const T_KEY_VALUE_KEY = (1 << 3) | 2;
export const T_KEY_VALUE_VALUE = (2 << 3) | 2;

// AnyValue; string_value_strindex (8) is outside the reader's subset
export const T_ANY_VALUE_STRING_VALUE = (1 << 3) | 2;
export const T_ANY_VALUE_BOOL_VALUE = (2 << 3) | 0;
export const T_ANY_VALUE_INT_VALUE = (3 << 3) | 0;
export const T_ANY_VALUE_DOUBLE_VALUE = (4 << 3) | 1;
export const T_ANY_VALUE_ARRAY_VALUE = (5 << 3) | 2;
export const T_ANY_VALUE_KVLIST_VALUE = (6 << 3) | 2;
export const T_ANY_VALUE_BYTES_VALUE = (7 << 3) | 2;

// ArrayValue and KeyValueList
export const T_ARRAY_VALUE_VALUES = (1 << 3) | 2;
export const T_KEY_VALUE_LIST_VALUES = (1 << 3) | 2;
