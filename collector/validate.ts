/**
 * Per-span validation: a span that breaks a rule is rejected (counted in partial_success with a message naming it)
 * and the valid ones go on. Rules: 16-byte non-zero trace id, 8-byte non-zero span id, empty or 8-byte parent,
 * non-zero start and end with end >= start, known kind and status code, well-formed links, UTF-8 strings,
 * non-empty attribute keys, bounded nesting, and `tooltrail.*` attributes of their contract type and values.
 * A problem in a resource or scope rejects all of its spans.
 */
import { ATTRIBUTE_TYPES, Attr, type AttrName, type AttrValueType, ENUM_VALUES } from '../contract/index.ts';
import {
  type AnyValue,
  anyValueKind,
  bytesToHex,
  type ExportTraceServiceRequest,
  type Int64,
  type KeyValue,
  MAX_ANY_VALUE_DEPTH,
  type ResourceSpans,
  type ScopeSpans,
  type Span,
} from '../platform/otlp/index.ts';

export const REJECT_REASONS = [
  'invalid_trace_id',
  'invalid_span_id',
  'invalid_parent_span_id',
  'invalid_timestamps',
  'invalid_kind',
  'invalid_status',
  'invalid_link',
  'invalid_utf8',
  'invalid_attribute',
  'invalid_tooltrail_attribute',
  'malformed_json',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export class Problem {
  constructor(
    readonly reason: RejectReason,
    readonly message: string,
  ) {}
}

/** What validation decided for one request. */
export interface ValidationResult {
  /** The request with only the accepted spans (resources and scopes left without spans are dropped). */
  request: ExportTraceServiceRequest;
  accepted: number;
  rejected: number;
  byReason: Map<RejectReason, number>;
  /** The first few problems, each naming the span; empty when nothing was rejected. */
  messages: string[];
  /** Accepted spans that validation changed (a span-level tenant claim removed): their received bytes are stale. */
  modified: Set<Span>;
}

/** How many problem messages a response carries; the count says how many more there were. */
export const MAX_MESSAGES = 5;

const TOOLTRAIL_PREFIX = 'tooltrail.';

function isZero(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

/** Unsigned comparison of two fixed64 values as decoded (Long) or converted (number/string). */
function u64(v: Int64 | null | undefined): bigint {
  if (v === null || v === undefined) return 0n;
  if (typeof v === 'object') return (BigInt(v.high >>> 0) << 32n) | BigInt(v.low >>> 0);
  return BigInt(v);
}

/** -1, 0 or 1 comparing two fixed64 values; decoded Longs are compared by their halves, without bigints. */
function compareU64(a: Int64 | null | undefined, b: Int64 | null | undefined): number {
  if (typeof a === 'object' && a !== null && typeof b === 'object' && b !== null) {
    const ah = a.high >>> 0;
    const bh = b.high >>> 0;
    if (ah !== bh) return ah < bh ? -1 : 1;
    const al = a.low >>> 0;
    const bl = b.low >>> 0;
    return al === bl ? 0 : al < bl ? -1 : 1;
  }
  const x = u64(a);
  const y = u64(b);
  return x === y ? 0 : x < y ? -1 : 1;
}

function depth(v: AnyValue | null | undefined): number {
  if (!v) return 0;
  if (v.arrayValue) return 1 + Math.max(0, ...v.arrayValue.values.map(depth));
  if (v.kvlistValue) return 1 + Math.max(0, ...v.kvlistValue.values.map((kv) => depth(kv.value)));
  return 1;
}

function matchesType(v: AnyValue | null | undefined, type: AttrValueType): boolean {
  switch (type) {
    case 'string':
      return v?.stringValue != null;
    case 'bool':
      return v?.boolValue != null;
    case 'int':
      return v?.intValue != null;
    case 'string[]':
      return v?.arrayValue?.values.every((x) => x.stringValue != null) ?? false;
  }
}

/** The first problem of a list of attributes; `contract` also checks `tooltrail.*` types and enum values. */
export function attributeProblem(attrs: KeyValue[] | undefined, where: string, contract: boolean): Problem | undefined {
  if (!attrs) return undefined;
  for (const kv of attrs) {
    const key = kv.key ?? '';
    if (key === '') return new Problem('invalid_attribute', `${where} attribute with an empty key`);
    const v = kv.value;
    if ((v?.arrayValue || v?.kvlistValue) && depth(v) > MAX_ANY_VALUE_DEPTH) {
      return new Problem('invalid_attribute', `${where} attribute ${key} nested deeper than ${MAX_ANY_VALUE_DEPTH}`);
    }
    if (!contract || !key.startsWith(TOOLTRAIL_PREFIX)) continue;
    const type = ATTRIBUTE_TYPES[key as AttrName];
    if (type === undefined) continue; // a newer emitter's attribute: kept, not judged
    if (!matchesType(v, type)) {
      return new Problem(
        'invalid_tooltrail_attribute',
        `${where} attribute ${key} must be ${type}, got ${anyValueKind(v)}`,
      );
    }
    const allowed = ENUM_VALUES[key as AttrName];
    if (allowed && v?.stringValue != null && !allowed.includes(v.stringValue)) {
      return new Problem(
        'invalid_tooltrail_attribute',
        `${where} attribute ${key} must be one of ${allowed.join('|')}, got "${v.stringValue.slice(0, 40)}"`,
      );
    }
  }
  return undefined;
}

function spanProblem(span: Span, invalidUtf8: number): Problem | undefined {
  const traceId = span.traceId;
  if (traceId?.length !== 16) {
    return new Problem('invalid_trace_id', `trace_id must be 16 bytes, got ${traceId?.length ?? 0}`);
  }
  if (isZero(traceId)) return new Problem('invalid_trace_id', 'trace_id must not be all zeros');
  const spanId = span.spanId;
  if (spanId?.length !== 8) {
    return new Problem('invalid_span_id', `span_id must be 8 bytes, got ${spanId?.length ?? 0}`);
  }
  if (isZero(spanId)) return new Problem('invalid_span_id', 'span_id must not be all zeros');
  const parent = span.parentSpanId;
  if (parent && parent.length !== 0 && parent.length !== 8) {
    return new Problem('invalid_parent_span_id', `parent_span_id must be empty or 8 bytes, got ${parent.length}`);
  }
  if (invalidUtf8 > 0) return new Problem('invalid_utf8', `${invalidUtf8} string(s) are not valid UTF-8`);
  const start = span.startTimeUnixNano;
  const end = span.endTimeUnixNano;
  if (compareU64(start, 0) === 0) return new Problem('invalid_timestamps', 'start_time_unix_nano must be set');
  if (compareU64(end, 0) === 0) return new Problem('invalid_timestamps', 'end_time_unix_nano must be set');
  if (compareU64(end, start) < 0) {
    return new Problem('invalid_timestamps', 'end_time_unix_nano is before start_time_unix_nano');
  }
  const kind = span.kind ?? 0;
  if (kind < 0 || kind > 5) return new Problem('invalid_kind', `kind ${kind} is not a SpanKind`);
  const code = span.status?.code ?? 0;
  if (code < 0 || code > 2) return new Problem('invalid_status', `status.code ${code} is not a StatusCode`);
  for (const link of span.links ?? []) {
    if (link.traceId?.length !== 16 || link.spanId?.length !== 8) {
      return new Problem('invalid_link', 'a link needs a 16-byte trace_id and an 8-byte span_id');
    }
    const p = attributeProblem(link.attributes, 'link', false);
    if (p) return p;
  }
  for (const event of span.events ?? []) {
    const p = attributeProblem(event.attributes, 'event', false);
    if (p) return p;
  }
  return attributeProblem(span.attributes, 'span', true);
}

/** A span-level `tooltrail.tenant` is a claim the collector never trusts: it is removed, not judged. */
function stripSpanTenant(span: Span): boolean {
  const attrs = span.attributes;
  if (!attrs?.some((kv) => kv.key === Attr.TENANT)) return false;
  span.attributes = attrs.filter((kv) => kv.key !== Attr.TENANT);
  return true;
}

export interface ValidateOptions {
  /** Invalid UTF-8 strings per decoded message (protobuf decoding reports them). */
  invalidUtf8?: (message: object) => number;
  /** Spans already rejected before validation (malformed OTLP/JSON), with their messages. */
  prior?: { spans: number; message: string }[];
}

export function validateRequest(request: ExportTraceServiceRequest, options: ValidateOptions = {}): ValidationResult {
  const invalidUtf8 = options.invalidUtf8 ?? (() => 0);
  const byReason = new Map<RejectReason, number>();
  const messages: string[] = [];
  const modified = new Set<Span>();
  let accepted = 0;
  let rejected = 0;
  const reject = (count: number, problem: Problem, where: string) => {
    rejected += count;
    byReason.set(problem.reason, (byReason.get(problem.reason) ?? 0) + count);
    if (messages.length < MAX_MESSAGES) messages.push(`${where}: ${problem.message}`);
  };
  for (const p of options.prior ?? []) reject(p.spans, new Problem('malformed_json', p.message), 'OTLP/JSON');

  const out: ResourceSpans[] = [];
  request.resourceSpans.forEach((rs, i) => {
    const total = rs.scopeSpans.reduce((n, ss) => n + ss.spans.length, 0);
    const nestedUtf8 = rs.scopeSpans.reduce((n, ss) => n + invalidUtf8(ss), 0);
    const rsProblem =
      (invalidUtf8(rs) > nestedUtf8
        ? new Problem('invalid_utf8', 'resource strings are not valid UTF-8')
        : undefined) ?? attributeProblem(rs.resource?.attributes, 'resource', true);
    if (rsProblem) {
      if (total > 0) reject(total, rsProblem, `resourceSpans[${i}] (${total} spans)`);
      return;
    }
    const scopes: ScopeSpans[] = [];
    rs.scopeSpans.forEach((ss, j) => {
      const spansUtf8 = ss.spans.reduce((n, s) => n + invalidUtf8(s), 0);
      const ssProblem =
        (invalidUtf8(ss) > spansUtf8 ? new Problem('invalid_utf8', 'scope strings are not valid UTF-8') : undefined) ??
        attributeProblem(ss.scope?.attributes ?? undefined, 'scope', false);
      if (ssProblem) {
        if (ss.spans.length > 0) reject(ss.spans.length, ssProblem, `resourceSpans[${i}].scopeSpans[${j}]`);
        return;
      }
      const keep: Span[] = [];
      for (const span of ss.spans) {
        const problem = spanProblem(span, invalidUtf8(span));
        if (problem) {
          reject(
            1,
            problem,
            `span ${bytesToHex(span.spanId) || '(no id)'} of trace ${bytesToHex(span.traceId) || '(no id)'}`,
          );
        } else {
          if (stripSpanTenant(span)) modified.add(span);
          keep.push(span);
        }
      }
      accepted += keep.length;
      if (keep.length === 0) return;
      scopes.push(
        keep.length === ss.spans.length
          ? ss
          : { scope: ss.scope ?? null, schemaUrl: ss.schemaUrl ?? null, spans: keep },
      );
    });
    if (scopes.length === 0) return;
    out.push(
      scopes.length === rs.scopeSpans.length && scopes.every((s, k) => s === rs.scopeSpans[k])
        ? rs
        : { resource: rs.resource ?? null, schemaUrl: rs.schemaUrl ?? null, scopeSpans: scopes },
    );
  });
  const allKept = out.length === request.resourceSpans.length && out.every((rs, k) => rs === request.resourceSpans[k]);
  return { request: allKept ? request : { resourceSpans: out }, accepted, rejected, byReason, messages, modified };
}

/** `rejected N of M spans: <first problems> (and K more)`, the partial_success error_message. */
export function rejectionMessage(result: ValidationResult): string {
  if (result.rejected === 0) return '';
  const total = result.accepted + result.rejected;
  const more = result.rejected - result.messages.length;
  const tail = more > 0 && result.messages.length >= MAX_MESSAGES ? `; and ${more} more` : '';
  return `rejected ${result.rejected} of ${total} spans: ${result.messages.join('; ')}${tail}`;
}

/**
 * Stamps the credential's tenant as the resource attribute `tooltrail.tenant` of every ResourceSpans, replacing
 * any value the payload claimed. Returns how many resources claimed a different tenant.
 */
export function stampTenant(request: ExportTraceServiceRequest, tenant: string): number {
  let overridden = 0;
  for (const rs of request.resourceSpans) {
    const attrs = rs.resource?.attributes ?? [];
    const claimed = attrs.filter((kv) => kv.key === Attr.TENANT);
    if (claimed.some((kv) => kv.value?.stringValue !== tenant)) overridden++;
    const kept = claimed.length > 0 ? attrs.filter((kv) => kv.key !== Attr.TENANT) : attrs.slice();
    kept.push({ key: Attr.TENANT, value: { stringValue: tenant } });
    // A new resource object: the decoded one may be shared with nothing else, but its arrays may be frozen.
    rs.resource = { ...(rs.resource ?? {}), attributes: kept };
  }
  return overridden;
}
