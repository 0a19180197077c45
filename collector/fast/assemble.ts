/**
 * Per-trace messages assembled from the request's bytes: the spans of each trace, in request order, copied as the
 * byte ranges they came in under their (re-encoded) resource and scope, laid out as TraceRequestAssembler lays them
 * out (platform/otlp/assemble.ts).
 */
import type { ResourceSpans } from '../../platform/otlp/index.ts';
import {
  T_RESOURCE_SPANS_RESOURCE as T_RESOURCE_SPANS_RESOURCE$,
  T_RESOURCE_SPANS_SCHEMA_URL as T_RESOURCE_SPANS_SCHEMA_URL$,
  T_RESOURCE_SPANS_SCOPE_SPANS as T_RESOURCE_SPANS_SCOPE_SPANS$,
  T_RESOURCE_SPANS as T_RESOURCE_SPANS$,
  T_SCOPE_SPANS_SCHEMA_URL as T_SCOPE_SPANS_SCHEMA_URL$,
  T_SCOPE_SPANS_SCOPE as T_SCOPE_SPANS_SCOPE$,
  T_SCOPE_SPANS_SPANS as T_SCOPE_SPANS_SPANS$,
} from '../../platform/otlp/reader/index.ts';
import {
  fieldSize as fieldSize$,
  varintSize as varintSize$,
  writeVarint as writeVarint$,
} from '../../platform/otlp/wire.ts';
import type { TraceMessage } from '../split-by-trace.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const fieldSize = fieldSize$;
const varintSize = varintSize$;
const writeVarint = writeVarint$;
const T_RESOURCE_SPANS = T_RESOURCE_SPANS$;
const T_RESOURCE_SPANS_RESOURCE = T_RESOURCE_SPANS_RESOURCE$;
const T_RESOURCE_SPANS_SCHEMA_URL = T_RESOURCE_SPANS_SCHEMA_URL$;
const T_RESOURCE_SPANS_SCOPE_SPANS = T_RESOURCE_SPANS_SCOPE_SPANS$;
const T_SCOPE_SPANS_SCHEMA_URL = T_SCOPE_SPANS_SCHEMA_URL$;
const T_SCOPE_SPANS_SCOPE = T_SCOPE_SPANS_SCOPE$;
const T_SCOPE_SPANS_SPANS = T_SCOPE_SPANS_SPANS$;

/**
 * Per span (request order): where its field starts when its tag and length are canonical (else -1), its
 * encoding's range, its scope, the next span of its trace.
 */
let spanTag: Int32Array = new Int32Array(1024);
let spanStart: Int32Array = new Int32Array(1024);
let spanEnd: Int32Array = new Int32Array(1024);
let spanScope: Int32Array = new Int32Array(1024);
let spanNext: Int32Array = new Int32Array(1024);

function grow(a: Int32Array, n: number): Int32Array {
  if (n < a.length) return a;
  const b = new Int32Array(Math.max(n + 1, a.length * 2));
  b.set(a);
  return b;
}

export interface ScopeInfo {
  resource: number;
  scope: Uint8Array | undefined;
  urlStart: number;
  urlEnd: number;
}

export interface ResourceInfo {
  rs: ResourceSpans;
  bytes: Uint8Array | undefined;
  urlStart: number;
  urlEnd: number;
  spans: number;
}

export interface Trace {
  key: string;
  /** Where its trace id is in the body. */
  at: number;
  head: number;
  tail: number;
  spans: number;
  /** Set by sizeTrace: the sizes of its scope and resource runs, and of its message. */
  sizes: number[];
  size: number;
}

/** Sizes of one trace's runs of spans sharing a scope and a resource, and of its whole message (pass 1). */
function sizeTrace(trace: Trace, scopes: ScopeInfo[], resources: ResourceInfo[]): void {
  let total = 0;
  let s = trace.head;
  while (s >= 0) {
    const r = (scopes[spanScope[s] as number] as ScopeInfo).resource;
    const ri = resources[r] as ResourceInfo;
    let rsize =
      fieldSize((ri.bytes as Uint8Array).length) + (ri.urlEnd > ri.urlStart ? fieldSize(ri.urlEnd - ri.urlStart) : 0);
    while (s >= 0 && (scopes[spanScope[s] as number] as ScopeInfo).resource === r) {
      const sc = spanScope[s] as number;
      const si = scopes[sc] as ScopeInfo;
      let ssize =
        (si.scope ? fieldSize(si.scope.length) : 0) +
        (si.urlEnd > si.urlStart ? fieldSize(si.urlEnd - si.urlStart) : 0);
      while (s >= 0 && spanScope[s] === sc) {
        ssize += fieldSize((spanEnd[s] as number) - (spanStart[s] as number));
        s = spanNext[s] as number;
      }
      trace.sizes.push(ssize);
      rsize += fieldSize(ssize);
    }
    trace.sizes.push(rsize);
    total += fieldSize(rsize);
  }
  trace.size = total;
}

const EMPTY = Buffer.alloc(0);
let buf: Buffer = EMPTY;
let out: Buffer = EMPTY;
let at = 0;

function put(tag: number, bytes: Uint8Array): void {
  out[at++] = tag;
  at = writeVarint(out, at, bytes.length);
  out.set(bytes, at);
  at += bytes.length;
}

function putRange(tag: number, start: number, end: number): void {
  out[at++] = tag;
  at = writeVarint(out, at, end - start);
  at += buf.copy(out, at, start, end);
}

/**
 * Writes one trace's ExportTraceServiceRequest at `at` in `out`, laid out as TraceRequestAssembler lays it out
 * (platform/otlp/assemble.ts). Spans that follow each other in the body, each with its canonical tag and length
 * (as the assembler writes them), are copied together with their tags in one copy.
 */
function writeTrace(trace: Trace, scopes: ScopeInfo[], resources: ResourceInfo[]): void {
  const start = at;
  // Pass 1 pushed, per resource run, its scope runs' sizes and then its own: find each resource's size first.
  const sizes = trace.sizes;
  let k = 0;
  let s = trace.head;
  while (s >= 0) {
    const r = (scopes[spanScope[s] as number] as ScopeInfo).resource;
    const res = resources[r] as ResourceInfo;
    // This resource run's scope sizes are sizes[k .. j), its own size sizes[j].
    let j = k;
    let probe = s;
    while (probe >= 0 && (scopes[spanScope[probe] as number] as ScopeInfo).resource === r) {
      const sc = spanScope[probe] as number;
      while (probe >= 0 && spanScope[probe] === sc) probe = spanNext[probe] as number;
      j++;
    }
    out[at++] = T_RESOURCE_SPANS;
    at = writeVarint(out, at, sizes[j] as number);
    put(T_RESOURCE_SPANS_RESOURCE, res.bytes as Uint8Array);
    while (s >= 0 && (scopes[spanScope[s] as number] as ScopeInfo).resource === r) {
      const sc = spanScope[s] as number;
      const sinfo = scopes[sc] as ScopeInfo;
      out[at++] = T_RESOURCE_SPANS_SCOPE_SPANS;
      at = writeVarint(out, at, sizes[k++] as number);
      if (sinfo.scope) put(T_SCOPE_SPANS_SCOPE, sinfo.scope);
      while (s >= 0 && spanScope[s] === sc) {
        const runFrom = spanTag[s] as number;
        if (runFrom < 0) {
          putRange(T_SCOPE_SPANS_SPANS, spanStart[s] as number, spanEnd[s] as number);
          s = spanNext[s] as number;
          continue;
        }
        let runTo = spanEnd[s] as number;
        s = spanNext[s] as number;
        while (s >= 0 && spanScope[s] === sc && spanTag[s] === runTo) {
          runTo = spanEnd[s] as number;
          s = spanNext[s] as number;
        }
        at += buf.copy(out, at, runFrom, runTo);
      }
      if (sinfo.urlEnd > sinfo.urlStart) putRange(T_SCOPE_SPANS_SCHEMA_URL, sinfo.urlStart, sinfo.urlEnd);
    }
    k = j + 1;
    if (res.urlEnd > res.urlStart) putRange(T_RESOURCE_SPANS_SCHEMA_URL, res.urlStart, res.urlEnd);
  }
  if (at - start !== trace.size) throw new Error(`collector fast path: assembled ${at - start} of ${trace.size} bytes`);
}

/**
 * Records span n (request order): its field's tag position when its tag and length are canonical (as the
 * assembler writes them: runs of such spans are copied at once), its encoding's range, its scope.
 */
export function recordSpan(body: Buffer, n: number, tagAt: number, from: number, to: number, scope: number): void {
  if (n >= spanStart.length) {
    spanTag = grow(spanTag, n);
    spanStart = grow(spanStart, n);
    spanEnd = grow(spanEnd, n);
    spanScope = grow(spanScope, n);
    spanNext = grow(spanNext, n);
  }
  spanTag[n] = body[tagAt] === T_SCOPE_SPANS_SPANS && from - tagAt === 1 + varintSize(to - from) ? tagAt : -1;
  spanStart[n] = from;
  spanEnd[n] = to;
  spanScope[n] = scope;
  spanNext[n] = -1;
}

/** Appends span n to its trace's list. */
export function linkSpan(trace: Trace, n: number): void {
  spanNext[trace.tail] = n;
  trace.tail = n;
}

/** The traces' messages, in one buffer (one allocation, not one per trace), each message a view of it. */
export function assembleTraces(
  body: Buffer,
  traces: readonly Trace[],
  scopes: ScopeInfo[],
  resources: ResourceInfo[],
): TraceMessage[] {
  buf = body;
  try {
    let total = 0;
    for (const t of traces) {
      sizeTrace(t, scopes, resources);
      total += t.size;
    }
    out = Buffer.allocUnsafe(total);
    at = 0;
    const messages: TraceMessage[] = [];
    for (const t of traces) {
      const from = at;
      writeTrace(t, scopes, resources);
      messages.push({ key: t.key, value: out.subarray(from, at), spanCount: t.spans });
    }
    return messages;
  } finally {
    buf = EMPTY;
    out = EMPTY;
  }
}
