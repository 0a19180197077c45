/**
 * The OTLP trace messages this module decodes and encodes, as a protobufjs JSON descriptor written from the
 * OpenTelemetry protocol's field numbers (opentelemetry-proto: common/v1, resource/v1, trace/v1,
 * collector/trace/v1; only the messages a trace export uses). Names are the lowerCamelCase of the proto names.
 * test/unit/platform/otlp-schema.test.ts holds every field here to OpenTelemetry's own .proto files (through the
 * checked-in reference descriptor, testkit/reference/otlp-proto-trace.json).
 *
 * Two deliberate differences from those files:
 * - Every message is in edition 2023 (explicit presence) instead of proto3 (implicit presence): a field that came
 *   with its default value (a dropped count of 0, as the OTel JS serializer writes) stays set and is encoded again,
 *   so a received request re-encodes to its own bytes. The wire format is the same.
 * - `AnyValue.string_value_strindex` (8) and `KeyValue.key_strindex` (3), references into a profiles dictionary that
 *   traces do not have, are left out: they are skipped as unknown fields, as before they existed.
 */
import type { INamespace, IType } from 'protobufjs';

const EDITION = '2023';

function message(fields: IType['fields'], extra: Omit<IType, 'fields'> = {}): IType {
  return { edition: EDITION, fields, ...extra } as IType;
}

const repeated = (type: string, id: number) => ({ rule: 'repeated', type, id });

export const OTLP_TRACE_SCHEMA: INamespace = {
  nested: {
    opentelemetry: {
      nested: {
        proto: {
          nested: {
            common: {
              nested: {
                v1: {
                  nested: {
                    AnyValue: message(
                      {
                        stringValue: { type: 'string', id: 1 },
                        boolValue: { type: 'bool', id: 2 },
                        intValue: { type: 'int64', id: 3 },
                        doubleValue: { type: 'double', id: 4 },
                        arrayValue: { type: 'ArrayValue', id: 5 },
                        kvlistValue: { type: 'KeyValueList', id: 6 },
                        bytesValue: { type: 'bytes', id: 7 },
                      },
                      {
                        oneofs: {
                          value: {
                            oneof: [
                              'stringValue',
                              'boolValue',
                              'intValue',
                              'doubleValue',
                              'arrayValue',
                              'kvlistValue',
                              'bytesValue',
                            ],
                          },
                        },
                      },
                    ),
                    ArrayValue: message({ values: repeated('AnyValue', 1) }),
                    KeyValueList: message({ values: repeated('KeyValue', 1) }),
                    KeyValue: message({ key: { type: 'string', id: 1 }, value: { type: 'AnyValue', id: 2 } }),
                    InstrumentationScope: message({
                      name: { type: 'string', id: 1 },
                      version: { type: 'string', id: 2 },
                      attributes: repeated('KeyValue', 3),
                      droppedAttributesCount: { type: 'uint32', id: 4 },
                    }),
                    EntityRef: message({
                      schemaUrl: { type: 'string', id: 1 },
                      type: { type: 'string', id: 2 },
                      idKeys: repeated('string', 3),
                      descriptionKeys: repeated('string', 4),
                    }),
                  },
                },
              },
            },
            resource: {
              nested: {
                v1: {
                  nested: {
                    Resource: message({
                      attributes: repeated('opentelemetry.proto.common.v1.KeyValue', 1),
                      droppedAttributesCount: { type: 'uint32', id: 2 },
                      entityRefs: repeated('opentelemetry.proto.common.v1.EntityRef', 3),
                    }),
                  },
                },
              },
            },
            trace: {
              nested: {
                v1: {
                  nested: {
                    ResourceSpans: message({
                      resource: { type: 'opentelemetry.proto.resource.v1.Resource', id: 1 },
                      scopeSpans: repeated('ScopeSpans', 2),
                      schemaUrl: { type: 'string', id: 3 },
                    }),
                    ScopeSpans: message({
                      scope: { type: 'opentelemetry.proto.common.v1.InstrumentationScope', id: 1 },
                      spans: repeated('Span', 2),
                      schemaUrl: { type: 'string', id: 3 },
                    }),
                    Span: message(
                      {
                        traceId: { type: 'bytes', id: 1 },
                        spanId: { type: 'bytes', id: 2 },
                        traceState: { type: 'string', id: 3 },
                        parentSpanId: { type: 'bytes', id: 4 },
                        flags: { type: 'fixed32', id: 16 },
                        name: { type: 'string', id: 5 },
                        kind: { type: 'SpanKind', id: 6 },
                        startTimeUnixNano: { type: 'fixed64', id: 7 },
                        endTimeUnixNano: { type: 'fixed64', id: 8 },
                        attributes: repeated('opentelemetry.proto.common.v1.KeyValue', 9),
                        droppedAttributesCount: { type: 'uint32', id: 10 },
                        events: repeated('Event', 11),
                        droppedEventsCount: { type: 'uint32', id: 12 },
                        links: repeated('Link', 13),
                        droppedLinksCount: { type: 'uint32', id: 14 },
                        status: { type: 'Status', id: 15 },
                      },
                      {
                        nested: {
                          SpanKind: {
                            edition: EDITION,
                            values: {
                              SPAN_KIND_UNSPECIFIED: 0,
                              SPAN_KIND_INTERNAL: 1,
                              SPAN_KIND_SERVER: 2,
                              SPAN_KIND_CLIENT: 3,
                              SPAN_KIND_PRODUCER: 4,
                              SPAN_KIND_CONSUMER: 5,
                            },
                          },
                          Event: message({
                            timeUnixNano: { type: 'fixed64', id: 1 },
                            name: { type: 'string', id: 2 },
                            attributes: repeated('opentelemetry.proto.common.v1.KeyValue', 3),
                            droppedAttributesCount: { type: 'uint32', id: 4 },
                          }),
                          Link: message({
                            traceId: { type: 'bytes', id: 1 },
                            spanId: { type: 'bytes', id: 2 },
                            traceState: { type: 'string', id: 3 },
                            attributes: repeated('opentelemetry.proto.common.v1.KeyValue', 4),
                            droppedAttributesCount: { type: 'uint32', id: 5 },
                            flags: { type: 'fixed32', id: 6 },
                          }),
                        },
                      },
                    ),
                    Status: message(
                      { message: { type: 'string', id: 2 }, code: { type: 'StatusCode', id: 3 } },
                      {
                        nested: {
                          StatusCode: {
                            edition: EDITION,
                            values: { STATUS_CODE_UNSET: 0, STATUS_CODE_OK: 1, STATUS_CODE_ERROR: 2 },
                          },
                        },
                      },
                    ),
                  },
                },
              },
            },
            collector: {
              nested: {
                trace: {
                  nested: {
                    v1: {
                      nested: {
                        ExportTraceServiceRequest: message({
                          resourceSpans: repeated('opentelemetry.proto.trace.v1.ResourceSpans', 1),
                        }),
                        ExportTraceServiceResponse: message({
                          partialSuccess: { type: 'ExportTracePartialSuccess', id: 1 },
                        }),
                        ExportTracePartialSuccess: message({
                          rejectedSpans: { type: 'int64', id: 1 },
                          errorMessage: { type: 'string', id: 2 },
                        }),
                      },
                    },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};
