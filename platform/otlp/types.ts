/**
 * The shapes of OTLP trace messages as this module decodes and encodes them (proto field names in lowerCamelCase,
 * as protobufjs names them). Decoded messages leave absent scalar fields null and
 * absent repeated fields as a shared frozen empty array: assign new arrays, never push into a decoded one.
 */

/** A 64-bit integer as protobufjs represents it (a `long.js` Long); decoding always yields this form. */
export interface Long64 {
  low: number;
  high: number;
  unsigned: boolean;
}

/** What an encoder accepts for an int64/fixed64 field: a Long, a safe integer, or a decimal string. */
export type Int64 = Long64 | number | string;

export interface AnyValue {
  stringValue?: string | null;
  boolValue?: boolean | null;
  intValue?: Int64 | null;
  doubleValue?: number | null;
  arrayValue?: ArrayValue | null;
  kvlistValue?: KeyValueList | null;
  bytesValue?: Uint8Array | null;
}

export interface ArrayValue {
  values: AnyValue[];
}

export interface KeyValueList {
  values: KeyValue[];
}

export interface KeyValue {
  key: string | null;
  value?: AnyValue | null;
}

export interface EntityRef {
  schemaUrl?: string | null;
  type?: string | null;
  idKeys?: string[];
  descriptionKeys?: string[];
}

export interface Resource {
  attributes: KeyValue[];
  droppedAttributesCount?: number | null;
  entityRefs?: EntityRef[];
}

export interface InstrumentationScope {
  name?: string | null;
  version?: string | null;
  attributes?: KeyValue[];
  droppedAttributesCount?: number | null;
}

/** `opentelemetry.proto.trace.v1.Status.StatusCode`: 0 unset, 1 ok, 2 error. */
export interface SpanStatus {
  message?: string | null;
  code?: number | null;
}

export interface SpanEvent {
  timeUnixNano?: Int64 | null;
  name?: string | null;
  attributes?: KeyValue[];
  droppedAttributesCount?: number | null;
}

export interface SpanLink {
  traceId?: Uint8Array | null;
  spanId?: Uint8Array | null;
  traceState?: string | null;
  attributes?: KeyValue[];
  droppedAttributesCount?: number | null;
  flags?: number | null;
}

export interface Span {
  traceId?: Uint8Array | null;
  spanId?: Uint8Array | null;
  traceState?: string | null;
  parentSpanId?: Uint8Array | null;
  flags?: number | null;
  name?: string | null;
  /** `Span.SpanKind`: 0 unspecified, 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind?: number | null;
  startTimeUnixNano?: Int64 | null;
  endTimeUnixNano?: Int64 | null;
  attributes?: KeyValue[];
  droppedAttributesCount?: number | null;
  events?: SpanEvent[];
  droppedEventsCount?: number | null;
  links?: SpanLink[];
  droppedLinksCount?: number | null;
  status?: SpanStatus | null;
}

export interface ScopeSpans {
  scope?: InstrumentationScope | null;
  spans: Span[];
  schemaUrl?: string | null;
}

export interface ResourceSpans {
  resource?: Resource | null;
  scopeSpans: ScopeSpans[];
  schemaUrl?: string | null;
}

/** `opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest`: the OTLP trace export and Kafka payload. */
export interface ExportTraceServiceRequest {
  resourceSpans: ResourceSpans[];
}

export interface ExportTracePartialSuccess {
  rejectedSpans?: Int64 | null;
  errorMessage?: string | null;
}

export interface ExportTraceServiceResponse {
  partialSuccess?: ExportTracePartialSuccess | null;
}

/** `google.rpc.Status`, the body of OTLP/HTTP error responses (details are not used by OTLP). */
export interface RpcStatus {
  code: number;
  message: string;
}
