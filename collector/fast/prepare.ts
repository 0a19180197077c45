/**
 * The fast path of `prepareMessages` for protobuf bodies in which every span is valid (nearly every request): the
 * body is read in place by the one OTLP reader (platform/otlp/reader), each span judged against the validation
 * rules on the reader's view of it, and the per-trace messages assembled by copying byte ranges, without decoding
 * spans into objects (decoding was half the collector's CPU). Only resources and scopes are decoded (once each, by
 * the generated code), to validate and stamp the tenant as `prepare` does.
 *
 * On the reader's subset the generated decoding reads the same values, so the result is byte for byte what
 * `prepare` + `splitByTrace` produce (test/unit/collector/prepare-fast.test.ts). Bytes outside the subset, and any
 * span to reject, flag or change, are declined with the reason (FAST_PATH_DECLINES, counted in the collector's
 * metrics): the general path then decides (refusal, partial success) exactly as before. Nothing else is caught: an
 * error of this code surfaces.
 */
import {
  decodeInstrumentationScopeAt as decodeInstrumentationScopeAt$,
  decodeResourceAt as decodeResourceAt$,
  encodeInstrumentationScope as encodeInstrumentationScope$,
  encodeResource as encodeResource$,
  OtlpDecodeError,
  type Resource,
} from '../../platform/otlp/index.ts';
import {
  OUTSIDE as OUTSIDE$,
  readTraceRequest as readTraceRequest$,
  resource as resource$,
  scope as scope$,
  span as span$,
  type TraceRequestVisitor,
} from '../../platform/otlp/reader/index.ts';
import type { PreparedMessages } from '../prepare.ts';
import { attributeProblem as attributeProblem$, stampTenant as stampTenant$ } from '../validate.ts';
import {
  assembleTraces as assembleTraces$,
  linkSpan as linkSpan$,
  type ResourceInfo,
  recordSpan as recordSpan$,
  type ScopeInfo,
  type Trace,
} from './assemble.ts';
import { spanPlain as spanPlain$ } from './span-rules.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const decodeInstrumentationScopeAt = decodeInstrumentationScopeAt$;
const decodeResourceAt = decodeResourceAt$;
const encodeInstrumentationScope = encodeInstrumentationScope$;
const encodeResource = encodeResource$;
const OUTSIDE = OUTSIDE$;
const readTraceRequest = readTraceRequest$;
const resource = resource$;
const scope = scope$;
const span = span$;
const attributeProblem = attributeProblem$;
const stampTenant = stampTenant$;
const assembleTraces = assembleTraces$;
const linkSpan = linkSpan$;
const recordSpan = recordSpan$;
const spanPlain = spanPlain$;

const EMPTY = Buffer.alloc(0);

/** Why the fast path left a protobuf body to the general path. */
export const FAST_PATH_DECLINES = [
  /** Bytes outside the reader's subset (unknown fields, other wire types, long varints, invalid UTF-8, ...). */
  'outside_subset',
  /** A request without spans. */
  'no_spans',
  /** A span to reject, to flag or to change (collector/fast/span-rules.ts). */
  'span_not_plain',
  /** A resource or a scope that does not decode, is not one exact message, has invalid UTF-8 or a bad attribute. */
  'resource_not_plain',
  'scope_not_plain',
] as const;
export type FastPathDecline = (typeof FAST_PATH_DECLINES)[number];

// The request being read.
let body: Buffer = EMPTY;
let scopes: ScopeInfo[] = [];
let resources: ResourceInfo[] = [];
let traces: Trace[] = [];
let byKey = new Map<string, Trace>();
let spans = 0;
let last: Trace | undefined;
/** Set by the visitor before it stops the reader. */
let declined: FastPathDecline | undefined;

/** Stops the reader for `reason`. */
function decline(reason: FastPathDecline): never {
  declined = reason;
  throw OUTSIDE;
}

/** A resource's or scope's generated decoding, or the decline when its bytes are not one such message. */
function decodedPart<T>(decode: () => T, reason: FastPathDecline): T {
  try {
    return decode();
  } catch (err) {
    if (err instanceof OtlpDecodeError) decline(reason);
    throw err;
  }
}

function sameId(a: number, b: number): boolean {
  for (let i = 0; i < 16; i++) if (body[a + i] !== body[b + i]) return false;
  return true;
}

const visitor: TraceRequestVisitor = {
  resource() {
    const ri: ResourceInfo = {
      rs: { resource: null, schemaUrl: null, scopeSpans: [] },
      bytes: undefined,
      urlStart: resource.schemaUrl,
      urlEnd: resource.schemaUrl + resource.schemaUrlLen,
      spans: 0,
    };
    if (resource.from >= 0) {
      const part = decodedPart(() => decodeResourceAt(body, resource.from, resource.to), 'resource_not_plain');
      if (!part.exact || part.invalidUtf8 > 0) decline('resource_not_plain');
      if (attributeProblem(part.message.attributes, 'resource')) decline('resource_not_plain');
      ri.rs.resource = part.message;
    }
    resources.push(ri);
  },
  scope() {
    const si: ScopeInfo = {
      resource: resources.length - 1,
      scope: undefined,
      urlStart: scope.schemaUrl,
      urlEnd: scope.schemaUrl + scope.schemaUrlLen,
    };
    if (scope.from >= 0) {
      const part = decodedPart(() => decodeInstrumentationScopeAt(body, scope.from, scope.to), 'scope_not_plain');
      if (!part.exact || part.invalidUtf8 > 0) decline('scope_not_plain');
      if (attributeProblem(part.message.attributes ?? undefined, 'scope')) decline('scope_not_plain');
      si.scope = encodeInstrumentationScope(part.message);
    }
    scopes.push(si);
  },
  span() {
    if (!spanPlain(body)) decline('span_not_plain');
    const n = spans++;
    recordSpan(body, n, span.tagAt, span.from, span.to, scopes.length - 1);
    (resources[resources.length - 1] as ResourceInfo).spans++;
    const traceAt = span.traceId;
    // Spans of one trace usually come together: compare with the previous span's trace id first.
    let trace = last !== undefined && sameId(last.at, traceAt) ? last : undefined;
    if (!trace) {
      const key = body.toString('hex', traceAt, traceAt + 16);
      trace = byKey.get(key);
      if (!trace) {
        trace = { key, at: traceAt, head: n, tail: n, spans: 0, sizes: [], size: 0 };
        byKey.set(key, trace);
        traces.push(trace);
      } else linkSpan(trace, n);
    } else linkSpan(trace, n);
    trace.spans++;
    last = trace;
  },
};

/**
 * Prepares a protobuf body whose spans are all valid: the same result as `prepareMessages(body, 'protobuf',
 * tenant)`, or why the general path must decide.
 */
export function prepareProtobufFast(bytes: Buffer, tenant: string): PreparedMessages | FastPathDecline {
  body = bytes;
  scopes = [];
  resources = [];
  traces = [];
  byKey = new Map();
  spans = 0;
  last = undefined;
  declined = undefined;
  try {
    if (!readTraceRequest(bytes, visitor)) return declined ?? 'outside_subset';
    if (spans === 0) return 'no_spans';
    // Tenant: stamped on every resource that has spans, as stampTenant does on the validated request.
    const withSpans = resources.filter((ri) => ri.spans > 0);
    const tenantOverrides = stampTenant({ resourceSpans: withSpans.map((ri) => ri.rs) }, tenant);
    for (const ri of withSpans) ri.bytes = encodeResource(ri.rs.resource as Resource); // stampTenant set it
    return {
      accepted: spans,
      rejected: 0,
      byReason: [],
      flagged: 0,
      flagsByReason: [],
      samples: [],
      errorMessage: '',
      tenantOverrides,
      messages: assembleTraces(bytes, traces, scopes, resources),
    };
  } finally {
    body = EMPTY;
    scopes = [];
    resources = [];
    traces = [];
    byKey = new Map();
    last = undefined;
  }
}
