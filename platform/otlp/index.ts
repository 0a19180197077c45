/**
 * Our one OTLP module: decodes and encodes OTLP trace protobuf (protobufjs codecs over our schema of the OTLP messages),
 * converts OTLP/JSON, and encodes `google.rpc.Status`. The collector and the ingest use it; nothing else loads
 * OTLP protobuf code.
 */
export * from './assemble.ts';
export * from './json.ts';
export {
  type CheckedDecode,
  type CheckedPart,
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceRequestChecked,
  decodeExportTraceServiceResponse,
  decodeInstrumentationScopeAt,
  decodeResourceAt,
  encodeExportTraceServiceRequest,
  encodeExportTraceServiceResponse,
  encodeInstrumentationScope,
  encodeResource,
  encodeSpan,
  OtlpDecodeError,
} from './protobuf.ts';
export * from './rpc-status.ts';
export type * from './types.ts';
export * from './values.ts';
