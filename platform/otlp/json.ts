/**
 * OTLP/JSON -> the message shapes of types.ts, per the OTLP specification's JSON encoding: trace and span ids are
 * hex strings (not base64), enums are integers (their names are accepted too), 64-bit integers are numbers or
 * decimal strings, unknown fields are ignored, lowerCamelCase and original snake_case field names both accepted.
 * A malformed span is set aside with a message naming its path; a malformed envelope fails the whole request.
 */

import type {
  AnyValue,
  ExportTraceServiceRequest,
  ExportTraceServiceResponse,
  InstrumentationScope,
  KeyValue,
  Long64,
  Resource,
  ResourceSpans,
  ScopeSpans,
  Span,
  SpanEvent,
  SpanLink,
  SpanStatus,
} from './types.ts';
import { hexToBytes, int64ToString, toLong64 } from './values.ts';

/** The request is not OTLP/JSON at all (a permanent error for the whole request). */
export class OtlpJsonError extends Error {
  override name = 'OtlpJsonError';
}

/** One field of one span (or of its resource/scope) is malformed. */
class FieldError extends Error {
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(`${path}: ${message}`);
  }
}

export interface JsonSpanRejection {
  /** How many spans this problem rejected (all of a scope's or resource's spans when it sits there). */
  spans: number;
  message: string;
}

export interface JsonConversion {
  /** The well-formed spans, in their resource and scope. */
  request: ExportTraceServiceRequest;
  rejections: JsonSpanRejection[];
}

/** Deepest AnyValue nesting accepted: deeper values are a way to exhaust the stack, not telemetry. */
export const MAX_ANY_VALUE_DEPTH = 32;

type Obj = Record<string, unknown>;

const SPAN_KINDS = [
  'SPAN_KIND_UNSPECIFIED',
  'SPAN_KIND_INTERNAL',
  'SPAN_KIND_SERVER',
  'SPAN_KIND_CLIENT',
  'SPAN_KIND_PRODUCER',
  'SPAN_KIND_CONSUMER',
];
const STATUS_CODES = ['STATUS_CODE_UNSET', 'STATUS_CODE_OK', 'STATUS_CODE_ERROR'];
const DECIMAL = /^-?\d+$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Both spellings of one field: keeping either would drop the other's data without a word. */
function bothSpellings(o: Obj, camel: string, snake: string | undefined): boolean {
  return snake !== undefined && snake !== camel && o[camel] != null && o[snake] != null;
}

/** The field under its lowerCamelCase name, else its proto name; null counts as absent; both is an error. */
function get(o: Obj, camel: string, snake?: string): unknown {
  if (bothSpellings(o, camel, snake)) throw new FieldError(camel, `both ${camel} and ${snake} are set`);
  const v = o[camel];
  if (v !== undefined && v !== null) return v;
  if (snake === undefined) return undefined;
  const s = o[snake];
  return s === null ? undefined : s;
}

function str(o: Obj, path: string, camel: string, snake?: string): string | undefined {
  const v = get(o, camel, snake);
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new FieldError(`${path}.${camel}`, 'must be a string');
  return v;
}

function uint32(o: Obj, path: string, camel: string, snake?: string): number | undefined {
  const v = get(o, camel, snake);
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && DECIMAL.test(v) ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) {
    throw new FieldError(`${path}.${camel}`, 'must be an unsigned 32-bit integer');
  }
  return n;
}

function int64(v: unknown, path: string, unsigned: boolean): Long64 {
  let digits: string | undefined;
  if (typeof v === 'number' && Number.isSafeInteger(v)) digits = String(v);
  else if (typeof v === 'string' && DECIMAL.test(v)) digits = v;
  if (digits === undefined) throw new FieldError(path, 'must be an integer (a JSON number or a decimal string)');
  const big = BigInt(digits);
  const [min, max] = unsigned ? [0n, 2n ** 64n - 1n] : [-(2n ** 63n), 2n ** 63n - 1n];
  if (big < min || big > max) throw new FieldError(path, `out of range for ${unsigned ? 'fixed64' : 'int64'}`);
  return toLong64(big, unsigned);
}

function fixed64Field(o: Obj, path: string, camel: string, snake: string): Long64 | undefined {
  const v = get(o, camel, snake);
  return v === undefined ? undefined : int64(v, `${path}.${camel}`, true);
}

function enumField(o: Obj, path: string, camel: string, names: string[]): number | undefined {
  const v = get(o, camel);
  if (v === undefined) return undefined;
  if (typeof v === 'number' && Number.isInteger(v) && v >= -(2 ** 31) && v < 2 ** 31) return v;
  if (typeof v === 'string' && names.includes(v)) return names.indexOf(v);
  throw new FieldError(`${path}.${camel}`, 'must be an integer enum value');
}

function idField(o: Obj, path: string, camel: string, snake: string): Uint8Array | undefined {
  const v = get(o, camel, snake);
  if (v === undefined || v === '') return undefined;
  const bytes = typeof v === 'string' ? hexToBytes(v) : undefined;
  if (!bytes) throw new FieldError(`${path}.${camel}`, 'must be a hex string');
  return bytes;
}

function arrayField(o: Obj, path: string, camel: string, snake?: string): unknown[] {
  const v = get(o, camel, snake);
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new FieldError(`${path}.${camel}`, 'must be an array');
  return v;
}

function obj(v: unknown, path: string): Obj {
  if (!isObj(v)) throw new FieldError(path, 'must be an object');
  return v;
}

function anyValue(v: unknown, path: string, depth: number): AnyValue {
  if (depth > MAX_ANY_VALUE_DEPTH) throw new FieldError(path, `nested deeper than ${MAX_ANY_VALUE_DEPTH} levels`);
  const o = obj(v, path);
  const s = get(o, 'stringValue', 'string_value');
  if (s !== undefined) {
    if (typeof s !== 'string') throw new FieldError(`${path}.stringValue`, 'must be a string');
    return { stringValue: s };
  }
  const b = get(o, 'boolValue', 'bool_value');
  if (b !== undefined) {
    if (typeof b !== 'boolean') throw new FieldError(`${path}.boolValue`, 'must be a boolean');
    return { boolValue: b };
  }
  const i = get(o, 'intValue', 'int_value');
  if (i !== undefined) return { intValue: int64(i, `${path}.intValue`, false) };
  const d = get(o, 'doubleValue', 'double_value');
  if (d !== undefined) {
    if (typeof d === 'number') return { doubleValue: d };
    if (d === 'NaN' || d === 'Infinity' || d === '-Infinity') return { doubleValue: Number(d) };
    throw new FieldError(`${path}.doubleValue`, 'must be a number');
  }
  const a = get(o, 'arrayValue', 'array_value');
  if (a !== undefined) {
    const values = arrayField(obj(a, `${path}.arrayValue`), `${path}.arrayValue`, 'values');
    return { arrayValue: { values: values.map((x, k) => anyValue(x, `${path}.arrayValue.values[${k}]`, depth + 1)) } };
  }
  const kv = get(o, 'kvlistValue', 'kvlist_value');
  if (kv !== undefined) {
    const values = arrayField(obj(kv, `${path}.kvlistValue`), `${path}.kvlistValue`, 'values');
    // A list's values are one level below it, as an array's (keyValues adds the one).
    return { kvlistValue: { values: keyValues(values, `${path}.kvlistValue.values`, depth) } };
  }
  const by = get(o, 'bytesValue', 'bytes_value');
  if (by !== undefined) {
    if (typeof by !== 'string' || !BASE64.test(by)) throw new FieldError(`${path}.bytesValue`, 'must be base64');
    return { bytesValue: Buffer.from(by, by.includes('-') || by.includes('_') ? 'base64url' : 'base64') };
  }
  return {};
}

function keyValues(list: unknown[], path: string, depth = 0): KeyValue[] {
  return list.map((item, k) => {
    const p = `${path}[${k}]`;
    const o = obj(item, p);
    const key = str(o, p, 'key') ?? '';
    const value = get(o, 'value');
    return value === undefined ? { key } : { key, value: anyValue(value, `${p}.value`, depth + 1) };
  });
}

function attributes(o: Obj, path: string): KeyValue[] {
  return keyValues(arrayField(o, path, 'attributes'), `${path}.attributes`);
}

function resource(v: unknown, path: string): Resource {
  const o = obj(v, path);
  const r: Resource = { attributes: attributes(o, path) };
  const dropped = uint32(o, path, 'droppedAttributesCount', 'dropped_attributes_count');
  if (dropped !== undefined) r.droppedAttributesCount = dropped;
  return r;
}

function scope(v: unknown, path: string): InstrumentationScope {
  const o = obj(v, path);
  const s: InstrumentationScope = { attributes: attributes(o, path) };
  const name = str(o, path, 'name');
  const version = str(o, path, 'version');
  const dropped = uint32(o, path, 'droppedAttributesCount', 'dropped_attributes_count');
  if (name !== undefined) s.name = name;
  if (version !== undefined) s.version = version;
  if (dropped !== undefined) s.droppedAttributesCount = dropped;
  return s;
}

function event(v: unknown, path: string): SpanEvent {
  const o = obj(v, path);
  const e: SpanEvent = { attributes: attributes(o, path) };
  const time = fixed64Field(o, path, 'timeUnixNano', 'time_unix_nano');
  const name = str(o, path, 'name');
  const dropped = uint32(o, path, 'droppedAttributesCount', 'dropped_attributes_count');
  if (time !== undefined) e.timeUnixNano = time;
  if (name !== undefined) e.name = name;
  if (dropped !== undefined) e.droppedAttributesCount = dropped;
  return e;
}

function link(v: unknown, path: string): SpanLink {
  const o = obj(v, path);
  const l: SpanLink = { attributes: attributes(o, path) };
  const traceId = idField(o, path, 'traceId', 'trace_id');
  const spanId = idField(o, path, 'spanId', 'span_id');
  const traceState = str(o, path, 'traceState', 'trace_state');
  const dropped = uint32(o, path, 'droppedAttributesCount', 'dropped_attributes_count');
  const flags = uint32(o, path, 'flags');
  if (traceId) l.traceId = traceId;
  if (spanId) l.spanId = spanId;
  if (traceState !== undefined) l.traceState = traceState;
  if (dropped !== undefined) l.droppedAttributesCount = dropped;
  if (flags !== undefined) l.flags = flags;
  return l;
}

function status(v: unknown, path: string): SpanStatus {
  const o = obj(v, path);
  const s: SpanStatus = {};
  const message = str(o, path, 'message');
  const code = enumField(o, path, 'code', STATUS_CODES);
  if (message !== undefined) s.message = message;
  if (code !== undefined) s.code = code;
  return s;
}

function span(v: unknown, path: string): Span {
  const o = obj(v, path);
  const s: Span = {
    attributes: attributes(o, path),
    events: arrayField(o, path, 'events').map((e, k) => event(e, `${path}.events[${k}]`)),
    links: arrayField(o, path, 'links').map((l, k) => link(l, `${path}.links[${k}]`)),
  };
  const traceId = idField(o, path, 'traceId', 'trace_id');
  const spanId = idField(o, path, 'spanId', 'span_id');
  const parentSpanId = idField(o, path, 'parentSpanId', 'parent_span_id');
  const traceState = str(o, path, 'traceState', 'trace_state');
  const flags = uint32(o, path, 'flags');
  const name = str(o, path, 'name');
  const kind = enumField(o, path, 'kind', SPAN_KINDS);
  const start = fixed64Field(o, path, 'startTimeUnixNano', 'start_time_unix_nano');
  const end = fixed64Field(o, path, 'endTimeUnixNano', 'end_time_unix_nano');
  const droppedAttributes = uint32(o, path, 'droppedAttributesCount', 'dropped_attributes_count');
  const droppedEvents = uint32(o, path, 'droppedEventsCount', 'dropped_events_count');
  const droppedLinks = uint32(o, path, 'droppedLinksCount', 'dropped_links_count');
  const st = get(o, 'status');
  if (traceId) s.traceId = traceId;
  if (spanId) s.spanId = spanId;
  if (parentSpanId) s.parentSpanId = parentSpanId;
  if (traceState !== undefined) s.traceState = traceState;
  if (flags !== undefined) s.flags = flags;
  if (name !== undefined) s.name = name;
  if (kind !== undefined) s.kind = kind;
  if (start !== undefined) s.startTimeUnixNano = start;
  if (end !== undefined) s.endTimeUnixNano = end;
  if (droppedAttributes !== undefined) s.droppedAttributesCount = droppedAttributes;
  if (droppedEvents !== undefined) s.droppedEventsCount = droppedEvents;
  if (droppedLinks !== undefined) s.droppedLinksCount = droppedLinks;
  if (st !== undefined) s.status = status(st, `${path}.status`);
  return s;
}

function envelopeArray(o: Obj, path: string, camel: string, snake: string): unknown[] {
  if (bothSpellings(o, camel, snake)) throw new OtlpJsonError(`${path} holds both ${camel} and ${snake}`);
  const v = get(o, camel, snake);
  if (v === undefined) return [];
  if (!Array.isArray(v)) throw new OtlpJsonError(`${path}.${camel} must be an array`);
  return v;
}

function envelopeObj(v: unknown, path: string): Obj {
  if (!isObj(v)) throw new OtlpJsonError(`${path} must be an object`);
  return v;
}

/**
 * Converts a parsed OTLP/JSON `ExportTraceServiceRequest`. Throws OtlpJsonError when the envelope (request,
 * resourceSpans, scopeSpans, spans arrays) is malformed; a malformed span, scope or resource only rejects its spans.
 */
export function exportTraceServiceRequestFromJson(json: unknown): JsonConversion {
  const rejections: JsonSpanRejection[] = [];
  const request: ExportTraceServiceRequest = { resourceSpans: [] };
  const top = envelopeObj(json, 'request');
  envelopeArray(top, 'request', 'resourceSpans', 'resource_spans').forEach((rsJson, i) => {
    const rsPath = `resourceSpans[${i}]`;
    const rsObj = envelopeObj(rsJson, rsPath);
    const scopes = envelopeArray(rsObj, rsPath, 'scopeSpans', 'scope_spans').map((ssJson, j) => {
      const ssPath = `${rsPath}.scopeSpans[${j}]`;
      const ssObj = envelopeObj(ssJson, ssPath);
      return { ssPath, ssObj, spans: envelopeArray(ssObj, ssPath, 'spans', 'spans') };
    });
    const total = scopes.reduce((n, s) => n + s.spans.length, 0);
    let rs: ResourceSpans;
    try {
      const r = get(rsObj, 'resource');
      const schemaUrl = str(rsObj, rsPath, 'schemaUrl', 'schema_url');
      rs = { scopeSpans: [], ...(r !== undefined ? { resource: resource(r, `${rsPath}.resource`) } : {}) };
      if (schemaUrl !== undefined) rs.schemaUrl = schemaUrl;
    } catch (err) {
      if (!(err instanceof FieldError)) throw err;
      if (total > 0) rejections.push({ spans: total, message: err.message });
      return;
    }
    for (const { ssPath, ssObj, spans } of scopes) {
      let ss: ScopeSpans;
      try {
        const sc = get(ssObj, 'scope');
        const schemaUrl = str(ssObj, ssPath, 'schemaUrl', 'schema_url');
        ss = { spans: [], ...(sc !== undefined ? { scope: scope(sc, `${ssPath}.scope`) } : {}) };
        if (schemaUrl !== undefined) ss.schemaUrl = schemaUrl;
      } catch (err) {
        if (!(err instanceof FieldError)) throw err;
        if (spans.length > 0) rejections.push({ spans: spans.length, message: err.message });
        continue;
      }
      spans.forEach((sp, k) => {
        try {
          ss.spans.push(span(sp, `${ssPath}.spans[${k}]`));
        } catch (err) {
          if (!(err instanceof FieldError)) throw err;
          rejections.push({ spans: 1, message: err.message });
        }
      });
      rs.scopeSpans.push(ss);
    }
    request.resourceSpans.push(rs);
  });
  return { request, rejections };
}

/** The OTLP/JSON form of a response (int64 as a decimal string, per the proto3 JSON mapping). */
export function exportTraceServiceResponseToJson(response: ExportTraceServiceResponse): Record<string, unknown> {
  const p = response.partialSuccess;
  if (!p) return {};
  const out: Record<string, unknown> = {};
  if (p.rejectedSpans != null) out.rejectedSpans = int64ToString(p.rejectedSpans);
  if (p.errorMessage != null && p.errorMessage !== '') out.errorMessage = p.errorMessage;
  return { partialSuccess: out };
}
