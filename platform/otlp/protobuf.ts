/**
 * OTLP protobuf encode/decode with the OpenTelemetry project's own protobufjs-generated code, taken from
 * `@opentelemetry/otlp-transformer@0.216.0` (installed under the alias `otlp-transformer-216`): the current line
 * (0.301, which the exporters use) ships no generated code at all (it serializes by hand and decodes only
 * responses). The generated root registers itself on protobufjs' shared `roots.default`; we load it into a private
 * root so that nothing else loading a root of its own can overwrite its namespace.
 */
import { isUtf8 } from 'node:buffer';
import { createRequire } from 'node:module';
import type {
  ExportTraceServiceRequest,
  ExportTraceServiceResponse,
  InstrumentationScope,
  Long64,
  Resource,
  ResourceSpans,
  ScopeSpans,
  Span,
} from './types.ts';

const ROOT_MODULE = 'otlp-transformer-216/build/src/generated/root.js';

interface ProtobufWriter {
  uint32(v: number): ProtobufWriter;
  int32(v: number): ProtobufWriter;
  string(v: string): ProtobufWriter;
  finish(): Uint8Array;
}

interface ProtobufReaderInstance {
  buf: Uint8Array;
  pos: number;
  len: number;
  uint32(): number;
  int32(): number;
  string(): string;
  bytes(): Uint8Array;
  bool(): boolean;
  double(): number;
  fixed32(): number;
  fixed64(): Long64;
  int64(): Long64;
  skipType(wireType: number): ProtobufReaderInstance;
}

interface ProtobufMinimal {
  roots: Record<string, unknown>;
  BufferReader: new (buf: Buffer) => ProtobufReaderInstance;
  Reader: { create(buf: Uint8Array): ProtobufReaderInstance };
  Writer: { create(): ProtobufWriter };
  util: {
    Long: { fromString(s: string, unsigned?: boolean): unknown; fromNumber(n: number, unsigned?: boolean): unknown };
  };
}

type Decoder = (reader: ProtobufReaderInstance | Uint8Array, length?: number, error?: number) => object;

interface GeneratedType<T> {
  encode(message: T, writer?: ProtobufWriter): ProtobufWriter;
  decode: Decoder;
}

interface GeneratedRoot {
  opentelemetry: {
    proto: {
      collector: {
        trace: {
          v1: {
            ExportTraceServiceRequest: GeneratedType<ExportTraceServiceRequest>;
            ExportTraceServiceResponse: GeneratedType<ExportTraceServiceResponse>;
          };
        };
      };
      trace: {
        v1: {
          ResourceSpans: GeneratedType<ResourceSpans>;
          ScopeSpans: GeneratedType<ScopeSpans>;
          Span: GeneratedType<Span>;
        };
      };
      resource: { v1: { Resource: GeneratedType<Resource> } };
      common: { v1: { InstrumentationScope: GeneratedType<InstrumentationScope> } };
    };
  };
}

const requireHere = createRequire(import.meta.url);
const rootPath = requireHere.resolve(ROOT_MODULE);
/** The protobufjs instance the generated code itself requires (resolved from its folder, so it is the same one). */
export const protobuf = createRequire(rootPath)('protobufjs/minimal') as ProtobufMinimal;

function loadIsolatedRoot(): GeneratedRoot {
  const shared = protobuf.roots.default;
  protobuf.roots.default = {};
  try {
    return createRequire(import.meta.url)(rootPath) as GeneratedRoot;
  } finally {
    if (shared === undefined) delete protobuf.roots.default;
    else protobuf.roots.default = shared;
  }
}

const root = loadIsolatedRoot();
const collectorV1 = root.opentelemetry.proto.collector.trace.v1;
const traceV1 = root.opentelemetry.proto.trace.v1;

/**
 * A reader that refuses strings running past the end of the input (protobufjs silently truncates them) and counts
 * strings that are not valid UTF-8 (protobufjs silently replaces their bytes), so validation can reject exactly
 * the spans that carry them.
 */
/** Node's Buffer has latin1Slice (not in its types); for ASCII it is the cheapest bytes-to-string there is. */
type LatinSlicing = Buffer & { latin1Slice(start: number, end: number): string };

class CheckedReader extends protobuf.BufferReader {
  invalidUtf8 = 0;
  override string(): string {
    const length = this.uint32();
    const start = this.pos;
    const end = start + length;
    if (end > this.len) throw new RangeError(`index out of range: ${start} + ${length} > ${this.len}`);
    this.pos = end;
    const buf = this.buf as Buffer;
    // ASCII (nearly every string in telemetry) needs no validation; only the others pay for isUtf8.
    for (let i = start; i < end; i++) {
      if ((buf[i] as number) > 0x7f) {
        const bytes = buf.subarray(start, end);
        if (!isUtf8(bytes)) this.invalidUtf8++;
        return bytes.toString('utf8');
      }
    }
    return (buf as LatinSlicing).latin1Slice(start, end);
  }
}

/** Invalid UTF-8 strings found inside each decoded message (span, scope, resource, and their containers). */
const invalidUtf8Counts = new WeakMap<object, number>();
/**
 * Each decoded span's bytes as received, so an unchanged span can be forwarded without re-encoding it. A WeakMap
 * measured best: a symbol property added to each span halved decode speed, per-decode Maps cost ~40% throughput.
 */
const encodedSpans = new WeakMap<object, Uint8Array>();
const spanType = traceV1.Span as GeneratedType<unknown>;

/** Every generated message type below `namespace` (constructors with a decode; enums and namespaces have none). */
function messageTypes(namespace: object, found: GeneratedType<unknown>[] = []): GeneratedType<unknown>[] {
  for (const value of Object.values(namespace)) {
    if (value === null || (typeof value !== 'object' && typeof value !== 'function')) continue;
    if (typeof value === 'function' && typeof (value as Partial<GeneratedType<unknown>>).decode === 'function') {
      found.push(value as GeneratedType<unknown>);
    }
    messageTypes(value as object, found);
  }
  return found;
}

// The generated decoders stop a message at `pos >= end` but never check that its last field ended exactly there:
// a nested length (a string, an attribute, an event) that runs past its enclosing message's end is read from the
// next field's bytes and the message is accepted. The one streaming reader (reader/) refuses such bytes, so a
// span accepted here and forwarded as received would be acknowledged, then dead-lettered (fuzz/README.md, case
// otlp-threads #4100 of seed 42). Checked decoding refuses a message whose fields do not end at its length.
for (const type of messageTypes(root.opentelemetry)) {
  const decode = type.decode;
  type.decode = function decodeWithinLength(reader, length, error) {
    if (!(reader instanceof CheckedReader) || length === undefined) return decode.call(this, reader, length, error);
    const end = reader.pos + length;
    const message = decode.call(this, reader, length, error);
    if (reader.pos !== end) throw new RangeError(`a field runs past the end of its message (offset ${end})`);
    return message;
  };
}

// Record, per message of these types, how many invalid strings its decoding met (its nested messages included).
for (const type of [
  traceV1.ResourceSpans,
  traceV1.ScopeSpans,
  traceV1.Span,
  root.opentelemetry.proto.resource.v1.Resource,
  root.opentelemetry.proto.common.v1.InstrumentationScope,
] as GeneratedType<unknown>[]) {
  const decode = type.decode;
  type.decode = function decodeCounting(reader, length, error) {
    if (!(reader instanceof CheckedReader)) return decode.call(this, reader, length, error);
    const before = reader.invalidUtf8;
    const message = decode.call(this, reader, length, error);
    if (reader.invalidUtf8 !== before) invalidUtf8Counts.set(message, reader.invalidUtf8 - before);
    if (type === spanType && length !== undefined) {
      encodedSpans.set(message, (reader.buf as Buffer).subarray(reader.pos - length, reader.pos));
    }
    return message;
  };
}

export class OtlpDecodeError extends Error {
  override name = 'OtlpDecodeError';
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

export interface CheckedDecode {
  request: ExportTraceServiceRequest;
  /**
   * How many strings that are not valid UTF-8 a decoded ResourceSpans, ScopeSpans, Span, Resource or
   * InstrumentationScope holds, nested messages included (0 for the clean ones).
   */
  invalidUtf8(message: object): number;
  /** A decoded span's encoding as received (a view into the input: do not modify the input meanwhile). */
  encodedSpan(span: Span): Uint8Array | undefined;
}

/** Decodes and reports invalid UTF-8 per message; throws OtlpDecodeError when the bytes are not this message. */
export function decodeExportTraceServiceRequestChecked(bytes: Uint8Array): CheckedDecode {
  const reader = new CheckedReader(toBuffer(bytes));
  let request: ExportTraceServiceRequest;
  try {
    request = collectorV1.ExportTraceServiceRequest.decode(reader) as ExportTraceServiceRequest;
  } catch (err) {
    throw new OtlpDecodeError(`not a valid ExportTraceServiceRequest: ${(err as Error).message}`);
  }
  const encodedSpan = (span: Span) => encodedSpans.get(span);
  if (reader.invalidUtf8 === 0) return { request, invalidUtf8: () => 0, encodedSpan };
  return { request, invalidUtf8: (m) => invalidUtf8Counts.get(m) ?? 0, encodedSpan };
}

/** A Resource or InstrumentationScope decoded from a range of a request, as the request's decoding decodes it. */
export interface CheckedPart<T> {
  message: T;
  /** Strings in it that are not valid UTF-8. */
  invalidUtf8: number;
  /** The decoding ended exactly at the range's end (otherwise the range was not one well-formed message). */
  exact: boolean;
}

function decodePart<T>(type: GeneratedType<T>, buf: Buffer, start: number, end: number): CheckedPart<T> {
  const reader = new CheckedReader(buf);
  reader.pos = start;
  const message = type.decode(reader, end - start) as T;
  return { message, invalidUtf8: reader.invalidUtf8, exact: reader.pos === end };
}

/** The Resource at buf[start, end) (a field of a ResourceSpans); throws what the generated decoding throws. */
export function decodeResourceAt(buf: Buffer, start: number, end: number): CheckedPart<Resource> {
  return decodePart(root.opentelemetry.proto.resource.v1.Resource, buf, start, end);
}

/** The InstrumentationScope at buf[start, end) (a field of a ScopeSpans). */
export function decodeInstrumentationScopeAt(
  buf: Buffer,
  start: number,
  end: number,
): CheckedPart<InstrumentationScope> {
  return decodePart(root.opentelemetry.proto.common.v1.InstrumentationScope, buf, start, end);
}

/** Decodes an OTLP protobuf `ExportTraceServiceRequest` (a Kafka message value); throws OtlpDecodeError. */
export function decodeExportTraceServiceRequest(bytes: Uint8Array): ExportTraceServiceRequest {
  return decodeExportTraceServiceRequestChecked(bytes).request;
}

/** Encodes an `ExportTraceServiceRequest` (plain objects or decoded messages) to OTLP protobuf. */
export function encodeExportTraceServiceRequest(message: ExportTraceServiceRequest): Uint8Array {
  return collectorV1.ExportTraceServiceRequest.encode(message).finish();
}

/** Encodes one message of the request's parts (used to assemble requests from already-encoded spans). */
export function encodeSpan(span: Span): Uint8Array {
  return traceV1.Span.encode(span).finish();
}

export function encodeResource(resource: Resource): Uint8Array {
  return root.opentelemetry.proto.resource.v1.Resource.encode(resource).finish();
}

export function encodeInstrumentationScope(scope: InstrumentationScope): Uint8Array {
  return root.opentelemetry.proto.common.v1.InstrumentationScope.encode(scope).finish();
}

export function encodeExportTraceServiceResponse(message: ExportTraceServiceResponse): Uint8Array {
  return collectorV1.ExportTraceServiceResponse.encode(message).finish();
}

export function decodeExportTraceServiceResponse(bytes: Uint8Array): ExportTraceServiceResponse {
  try {
    return collectorV1.ExportTraceServiceResponse.decode(toBuffer(bytes)) as ExportTraceServiceResponse;
  } catch (err) {
    throw new OtlpDecodeError(`not a valid ExportTraceServiceResponse: ${(err as Error).message}`);
  }
}
