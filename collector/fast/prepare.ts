/**
 * The fast path of `prepareMessages` for protobuf bodies in which every span is valid (nearly every request): the
 * body is read in place by the one OTLP reader (platform/otlp/reader), each span judged against the validation
 * rules on the reader's view of it, and the per-trace messages assembled by copying byte ranges, without decoding
 * spans into objects (decoding was half the collector's CPU). Only resources and scopes are decoded (once each, by
 * the generated code), to validate and stamp the tenant as `prepare` does.
 *
 * On the reader's subset the generated decoding reads the same values, so the result is byte for byte what
 * `prepare` + `splitByTrace` produce (test/unit/collector/prepare-fast.test.ts). Bytes outside the subset, and any
 * span to reject, flag or change, return undefined: the general path then decides (refusal, partial success)
 * exactly as before.
 */
import {
  decodeInstrumentationScopeAt as decodeInstrumentationScopeAt$,
  decodeResourceAt as decodeResourceAt$,
  encodeInstrumentationScope as encodeInstrumentationScope$,
  encodeResource as encodeResource$,
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

// Local bindings: imports read through the module loader's getters cost a call per use on these paths.
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

// The request being read.
let body: Buffer = EMPTY;
let scopes: ScopeInfo[] = [];
let resources: ResourceInfo[] = [];
let traces: Trace[] = [];
let byKey = new Map<string, Trace>();
let spans = 0;
let last: Trace | undefined;

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
      const part = decodeResourceAt(body, resource.from, resource.to);
      if (!part.exact || part.invalidUtf8 > 0) throw OUTSIDE;
      if (attributeProblem(part.message.attributes, 'resource')) throw OUTSIDE;
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
      const part = decodeInstrumentationScopeAt(body, scope.from, scope.to);
      if (!part.exact || part.invalidUtf8 > 0) throw OUTSIDE;
      if (attributeProblem(part.message.attributes ?? undefined, 'scope')) throw OUTSIDE;
      si.scope = encodeInstrumentationScope(part.message);
    }
    scopes.push(si);
  },
  span() {
    if (!spanPlain(body)) throw OUTSIDE;
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
 * tenant)`, or undefined when the general path must decide.
 */
export function prepareProtobufFast(bytes: Buffer, tenant: string): PreparedMessages | undefined {
  body = bytes;
  scopes = [];
  resources = [];
  traces = [];
  byKey = new Map();
  spans = 0;
  last = undefined;
  try {
    if (!readTraceRequest(bytes, visitor) || spans === 0) return undefined;
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
  } catch (err) {
    // The generated decoding of a resource or scope threw: the general path refuses the body as it always did.
    if (err instanceof Error) return undefined;
    throw err;
  } finally {
    body = EMPTY;
    scopes = [];
    resources = [];
    traces = [];
    byKey = new Map();
    last = undefined;
  }
}
