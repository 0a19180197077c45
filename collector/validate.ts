/**
 * Per-span validation: a span that breaks a rule is rejected (counted in partial_success with a message naming it)
 * and the valid ones go on. Rules: 16-byte non-zero trace id, 8-byte non-zero span id, empty or 8-byte parent,
 * non-zero start and end with end >= start, known kind and status code, well-formed links, UTF-8 strings,
 * non-empty attribute keys, bounded nesting. A problem in a resource or scope rejects all of its spans.
 * A span whose `tooltrail.*` contract attributes are malformed, or that is a tool call only by what it carries, is
 * never rejected for it: it is kept and flagged (contract/attribute-values.ts, the rules the ingest applies to the
 * stored row), and partial_success says what was wrong.
 */
import { Attr, isJudgedContractKey, judgeContractAttribute, recognizeToolSpan } from '../contract/index.ts';
import {
  type AnyValue,
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
  'malformed_json',
] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

/** Why an accepted span was flagged: the pipeline warning codes (contract/codes.ts), in lower case. */
export const FLAG_REASONS = ['invalid_contract_attribute', 'contract_attribute_coerced', 'tool_span_inferred'] as const;
export type FlagReason = (typeof FLAG_REASONS)[number];

/** One example of a reason, for the sender report: the span it was seen on and what was wrong. */
export interface ReasonSample {
  outcome: 'rejected' | 'flagged';
  reason: RejectReason | FlagReason;
  /** Hex span id ('' when the problem is not one span's, e.g. a resource's). */
  spanId: string;
  message: string;
}

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
  /** Accepted spans stored with contract problems (each counted once), by reason (a span may have several). */
  flagged: number;
  flagsByReason: Map<FlagReason, number>;
  /** The first few flags, each naming the span and the attribute. */
  flagMessages: string[];
  /** The first span of each reason, rejected or flagged. */
  samples: Map<RejectReason | FlagReason, ReasonSample>;
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

/** The first structural problem of a list of attributes (empty key, nesting). */
export function attributeProblem(attrs: KeyValue[] | undefined, where: string): Problem | undefined {
  if (!attrs) return undefined;
  for (const kv of attrs) {
    const key = kv.key ?? '';
    if (key === '') return new Problem('invalid_attribute', `${where} attribute with an empty key`);
    const v = kv.value;
    if ((v?.arrayValue || v?.kvlistValue) && depth(v) > MAX_ANY_VALUE_DEPTH) {
      return new Problem('invalid_attribute', `${where} attribute ${key} nested deeper than ${MAX_ANY_VALUE_DEPTH}`);
    }
  }
  return undefined;
}

/** A contract problem of an accepted span, named as the ingest names it on the stored row. */
export interface Flag {
  reason: FlagReason;
  message: string;
}

/** The contract problems a span is kept with: malformed `tooltrail.*` attributes, a tool call only by content. */
export function spanFlags(span: Span): Flag[] {
  let flags: Flag[] | undefined;
  const tool = recognizeToolSpan(span.attributes);
  if (tool.kind === 'inferred') flags = [{ reason: 'tool_span_inferred', message: tool.message }];
  for (const kv of span.attributes ?? []) {
    const key = kv.key;
    if (key == null || !key.startsWith(TOOLTRAIL_PREFIX) || !isJudgedContractKey(key)) continue;
    const verdict = judgeContractAttribute(key, kv.value);
    if (verdict.kind === 'ok') continue;
    const f: Flag = {
      reason: verdict.kind === 'coerced' ? 'contract_attribute_coerced' : 'invalid_contract_attribute',
      message: verdict.message,
    };
    if (flags === undefined) flags = [f];
    else flags.push(f);
  }
  return flags ?? NO_FLAGS;
}

const NO_FLAGS: Flag[] = [];

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
    const p = attributeProblem(link.attributes, 'link');
    if (p) return p;
  }
  for (const event of span.events ?? []) {
    const p = attributeProblem(event.attributes, 'event');
    if (p) return p;
  }
  return attributeProblem(span.attributes, 'span');
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
  const flagsByReason = new Map<FlagReason, number>();
  const flagMessages: string[] = [];
  const samples = new Map<RejectReason | FlagReason, ReasonSample>();
  let accepted = 0;
  let rejected = 0;
  let flagged = 0;
  const reject = (count: number, problem: Problem, where: string, spanId = '') => {
    rejected += count;
    byReason.set(problem.reason, (byReason.get(problem.reason) ?? 0) + count);
    if (messages.length < MAX_MESSAGES) messages.push(`${where}: ${problem.message}`);
    if (!samples.has(problem.reason)) {
      samples.set(problem.reason, { outcome: 'rejected', reason: problem.reason, spanId, message: problem.message });
    }
  };
  const flag = (span: Span, flags: Flag[]) => {
    flagged++;
    const spanId = bytesToHex(span.spanId);
    for (const f of flags) {
      flagsByReason.set(f.reason, (flagsByReason.get(f.reason) ?? 0) + 1);
      if (!samples.has(f.reason))
        samples.set(f.reason, { outcome: 'flagged', reason: f.reason, spanId, message: f.message });
    }
    if (flagMessages.length < MAX_MESSAGES) {
      flagMessages.push(
        `span ${spanId} of trace ${bytesToHex(span.traceId)}: ${flags.map((f) => f.message).join('; ')}`,
      );
    }
  };
  for (const p of options.prior ?? []) reject(p.spans, new Problem('malformed_json', p.message), 'OTLP/JSON');

  const out: ResourceSpans[] = [];
  request.resourceSpans.forEach((rs, i) => {
    const total = rs.scopeSpans.reduce((n, ss) => n + ss.spans.length, 0);
    const nestedUtf8 = rs.scopeSpans.reduce((n, ss) => n + invalidUtf8(ss), 0);
    const rsProblem =
      (invalidUtf8(rs) > nestedUtf8
        ? new Problem('invalid_utf8', 'resource strings are not valid UTF-8')
        : undefined) ?? attributeProblem(rs.resource?.attributes, 'resource');
    if (rsProblem) {
      if (total > 0) reject(total, rsProblem, `resourceSpans[${i}] (${total} spans)`);
      return;
    }
    const scopes: ScopeSpans[] = [];
    rs.scopeSpans.forEach((ss, j) => {
      const spansUtf8 = ss.spans.reduce((n, s) => n + invalidUtf8(s), 0);
      const ssProblem =
        (invalidUtf8(ss) > spansUtf8 ? new Problem('invalid_utf8', 'scope strings are not valid UTF-8') : undefined) ??
        attributeProblem(ss.scope?.attributes ?? undefined, 'scope');
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
            bytesToHex(span.spanId),
          );
        } else {
          if (stripSpanTenant(span)) modified.add(span);
          const flags = spanFlags(span);
          if (flags.length > 0) flag(span, flags);
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
  return {
    request: allKept ? request : { resourceSpans: out },
    accepted,
    rejected,
    byReason,
    messages,
    modified,
    flagged,
    flagsByReason,
    flagMessages,
    samples,
  };
}

/**
 * The partial_success error_message: `rejected N of M spans: <first problems> (and K more)`, then `kept K of M
 * spans, stored flagged: <first flags>`. Empty when nothing was rejected or flagged (a flag alone is a warning:
 * rejected_spans 0 with a message, as the OTLP specification allows).
 */
export function rejectionMessage(result: ValidationResult): string {
  const total = result.accepted + result.rejected;
  const parts: string[] = [];
  if (result.rejected > 0) {
    const more = result.rejected - result.messages.length;
    const tail = more > 0 && result.messages.length >= MAX_MESSAGES ? `; and ${more} more` : '';
    parts.push(`rejected ${result.rejected} of ${total} spans: ${result.messages.join('; ')}${tail}`);
  }
  if (result.flagged > 0) {
    const more = result.flagged - result.flagMessages.length;
    const tail = more > 0 ? `; and ${more} more` : '';
    parts.push(
      `kept ${result.flagged} of ${total} spans with contract problems, stored flagged: ${result.flagMessages.join('; ')}${tail}`,
    );
  }
  return parts.join('. ');
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
