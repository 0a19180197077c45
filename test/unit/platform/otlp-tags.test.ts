/**
 * The reader's wire tags (platform/otlp/reader/tags.ts) against OpenTelemetry's .proto files (the checked-in
 * descriptor, testkit/otlp-reference.ts): each tag's field number and wire type are those of the field it names.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import protobufjs from 'protobufjs';
import * as tags from '../../../platform/otlp/reader/tags.ts';
import { type OtlpReference, otlpReference } from '../../../testkit/otlp-reference.ts';

const P = 'opentelemetry.proto';

/** Each tag's field: message, field name (protobufjs' lowerCamelCase). */
const FIELDS: Record<keyof typeof tags, [string, string]> = {
  T_RESOURCE_SPANS: [`${P}.collector.trace.v1.ExportTraceServiceRequest`, 'resourceSpans'],
  T_RESOURCE_SPANS_RESOURCE: [`${P}.trace.v1.ResourceSpans`, 'resource'],
  T_RESOURCE_SPANS_SCOPE_SPANS: [`${P}.trace.v1.ResourceSpans`, 'scopeSpans'],
  T_RESOURCE_SPANS_SCHEMA_URL: [`${P}.trace.v1.ResourceSpans`, 'schemaUrl'],
  T_RESOURCE_ATTRIBUTES: [`${P}.resource.v1.Resource`, 'attributes'],
  T_RESOURCE_DROPPED_ATTRIBUTES_COUNT: [`${P}.resource.v1.Resource`, 'droppedAttributesCount'],
  T_SCOPE_SPANS_SCOPE: [`${P}.trace.v1.ScopeSpans`, 'scope'],
  T_SCOPE_SPANS_SPANS: [`${P}.trace.v1.ScopeSpans`, 'spans'],
  T_SCOPE_SPANS_SCHEMA_URL: [`${P}.trace.v1.ScopeSpans`, 'schemaUrl'],
  T_SCOPE_NAME: [`${P}.common.v1.InstrumentationScope`, 'name'],
  T_SCOPE_VERSION: [`${P}.common.v1.InstrumentationScope`, 'version'],
  T_SCOPE_ATTRIBUTES: [`${P}.common.v1.InstrumentationScope`, 'attributes'],
  T_SCOPE_DROPPED_ATTRIBUTES_COUNT: [`${P}.common.v1.InstrumentationScope`, 'droppedAttributesCount'],
  T_SPAN_TRACE_ID: [`${P}.trace.v1.Span`, 'traceId'],
  T_SPAN_SPAN_ID: [`${P}.trace.v1.Span`, 'spanId'],
  T_SPAN_TRACE_STATE: [`${P}.trace.v1.Span`, 'traceState'],
  T_SPAN_PARENT_SPAN_ID: [`${P}.trace.v1.Span`, 'parentSpanId'],
  T_SPAN_NAME: [`${P}.trace.v1.Span`, 'name'],
  T_SPAN_KIND: [`${P}.trace.v1.Span`, 'kind'],
  T_SPAN_START_TIME_UNIX_NANO: [`${P}.trace.v1.Span`, 'startTimeUnixNano'],
  T_SPAN_END_TIME_UNIX_NANO: [`${P}.trace.v1.Span`, 'endTimeUnixNano'],
  T_SPAN_ATTRIBUTES: [`${P}.trace.v1.Span`, 'attributes'],
  T_SPAN_DROPPED_ATTRIBUTES_COUNT: [`${P}.trace.v1.Span`, 'droppedAttributesCount'],
  T_SPAN_EVENTS: [`${P}.trace.v1.Span`, 'events'],
  T_SPAN_DROPPED_EVENTS_COUNT: [`${P}.trace.v1.Span`, 'droppedEventsCount'],
  T_SPAN_LINKS: [`${P}.trace.v1.Span`, 'links'],
  T_SPAN_DROPPED_LINKS_COUNT: [`${P}.trace.v1.Span`, 'droppedLinksCount'],
  T_SPAN_STATUS: [`${P}.trace.v1.Span`, 'status'],
  T_SPAN_FLAGS: [`${P}.trace.v1.Span`, 'flags'],
  T_EVENT_TIME_UNIX_NANO: [`${P}.trace.v1.Span.Event`, 'timeUnixNano'],
  T_EVENT_NAME: [`${P}.trace.v1.Span.Event`, 'name'],
  T_EVENT_ATTRIBUTES: [`${P}.trace.v1.Span.Event`, 'attributes'],
  T_EVENT_DROPPED_ATTRIBUTES_COUNT: [`${P}.trace.v1.Span.Event`, 'droppedAttributesCount'],
  T_LINK_TRACE_ID: [`${P}.trace.v1.Span.Link`, 'traceId'],
  T_LINK_SPAN_ID: [`${P}.trace.v1.Span.Link`, 'spanId'],
  T_LINK_TRACE_STATE: [`${P}.trace.v1.Span.Link`, 'traceState'],
  T_LINK_ATTRIBUTES: [`${P}.trace.v1.Span.Link`, 'attributes'],
  T_LINK_DROPPED_ATTRIBUTES_COUNT: [`${P}.trace.v1.Span.Link`, 'droppedAttributesCount'],
  T_LINK_FLAGS: [`${P}.trace.v1.Span.Link`, 'flags'],
  T_STATUS_MESSAGE: [`${P}.trace.v1.Status`, 'message'],
  T_STATUS_CODE: [`${P}.trace.v1.Status`, 'code'],
  T_KEY_VALUE_KEY: [`${P}.common.v1.KeyValue`, 'key'],
  T_KEY_VALUE_VALUE: [`${P}.common.v1.KeyValue`, 'value'],
  T_ANY_VALUE_STRING_VALUE: [`${P}.common.v1.AnyValue`, 'stringValue'],
  T_ANY_VALUE_BOOL_VALUE: [`${P}.common.v1.AnyValue`, 'boolValue'],
  T_ANY_VALUE_INT_VALUE: [`${P}.common.v1.AnyValue`, 'intValue'],
  T_ANY_VALUE_DOUBLE_VALUE: [`${P}.common.v1.AnyValue`, 'doubleValue'],
  T_ANY_VALUE_ARRAY_VALUE: [`${P}.common.v1.AnyValue`, 'arrayValue'],
  T_ANY_VALUE_KVLIST_VALUE: [`${P}.common.v1.AnyValue`, 'kvlistValue'],
  T_ANY_VALUE_BYTES_VALUE: [`${P}.common.v1.AnyValue`, 'bytesValue'],
  T_ARRAY_VALUE_VALUES: [`${P}.common.v1.ArrayValue`, 'values'],
  T_KEY_VALUE_LIST_VALUES: [`${P}.common.v1.KeyValueList`, 'values'],
};

/** The wire type a singular (or unpacked repeated) field of this type is written with. */
function wireType(field: protobufjs.Field): number {
  field.resolve();
  if (field.resolvedType instanceof protobufjs.Enum) return 0;
  if (field.resolvedType instanceof protobufjs.Type) return 2;
  const wire: Record<string, number> = {
    string: 2,
    bytes: 2,
    bool: 0,
    int32: 0,
    uint32: 0,
    int64: 0,
    uint64: 0,
    fixed64: 1,
    double: 1,
    fixed32: 5,
    float: 5,
  };
  const w = wire[field.type];
  assert.ok(w !== undefined, `no wire type known for ${field.type}`);
  return w;
}

describe('platform/otlp/reader tags', () => {
  let ref: OtlpReference;
  before(async () => {
    ref = await otlpReference();
  });

  it('each tag is its field number and wire type in the .proto files', () => {
    for (const [name, tag] of Object.entries(tags)) {
      const where = FIELDS[name as keyof typeof tags];
      assert.ok(where, `${name}: no field named for it in this test`);
      const field = ref.root.lookupType(where[0]).fields[where[1]];
      assert.ok(field, `${name}: ${where[0]} has no field ${where[1]}`);
      assert.equal(tag, (field.id << 3) | wireType(field), `${name} (${where[0]}.${where[1]})`);
    }
  });
});
