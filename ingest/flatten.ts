/**
 * ExportTraceServiceRequest -> table rows. A tool span (`gen_ai.operation.name` = `execute_tool`, or recognised by
 * what it carries: contract/attribute-values.ts; another emitter's, normalised by ingest/emitters/) becomes one `tool_calls` row plus one `tool_call_warnings` row per
 * `tooltrail.warning` event and per contract problem it was stored with (a malformed contract attribute, an
 * inferred tool span: the pipeline warning codes); every other span becomes one `spans` row (otel_traces-shaped). Pure and deterministic: the same request always gives the same rows in the same
 * order, which the exactly-once deduplication tokens rely on.
 *
 * A span that cannot be stored faithfully (no tenant, a missing or malformed trace/span id) is not dropped
 * silently: it is returned in `rejected` with a reason code, for the caller to dead-letter and count.
 */

import {
  ATTRIBUTE_TYPES,
  Attr,
  type AttrName,
  ENUM_VALUES,
  EXECUTE_TOOL,
  GenAi,
  isJudgedContractKey,
  isValidTenant,
  judgeContractAttribute,
  MAP_ONLY_ATTRIBUTES,
  OtelResource,
  type PipelineWarningCode,
  recognizeToolSpan,
  WarningEvent,
} from '../contract/index.ts';
import type {
  AnyValue,
  ExportTraceServiceRequest,
  Int64,
  KeyValue,
  ResourceSpans,
  ScopeSpans,
  Span,
} from '../platform/otlp/index.ts';
import type { NanoTime, Rows, SpanRow, StringMap, ToolCallRow, WarningRow } from '../schema/rows.ts';
import { emptyRows } from '../schema/rows.ts';
import { withoutContent } from './emitters/content.ts';
import { type EmitterOptions, normalizeToolSpan } from './emitters/normalize.ts';
import { recognizeEmitter } from './emitters/recognize.ts';
import { EmitterRequest } from './emitters/request.ts';

export const REJECT_REASONS = ['missing_tenant', 'invalid_tenant', 'invalid_trace_id', 'invalid_span_id'] as const;
export type RejectReason = (typeof REJECT_REASONS)[number];

export interface RejectedSpan {
  reason: RejectReason;
  /** Where the span sits in the request, to rebuild a request of only the rejected spans. */
  resourceIndex: number;
  scopeIndex: number;
  spanIndex: number;
}

export interface FlattenResult extends Rows {
  rejected: RejectedSpan[];
}

export interface FlattenOptions {
  /** The authenticated tenant (direct mode): overrides whatever the resource says. */
  tenant?: string;
  /**
   * Tenant for spans whose resource carries no `tooltrail.tenant` (e.g. written to Kafka by a plain OpenTelemetry
   * Collector). Unset: such spans are rejected with `missing_tenant`, never guessed.
   */
  defaultTenant?: string;
  /** How tool spans of other emitters (OpenInference, OpenLLMetry, the AI SDK, GenAI, MCP) are judged. */
  emitters?: EmitterOptions;
}

const SPAN_KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'];
const STATUS_CODES = ['Unset', 'Ok', 'Error'];

// ---------------------------------------------------------------------------------------------- values

const TWO_POW_32 = 4294967296n;

/** A fixed64/int64 as bigint (Long, number or decimal string). */
function toBigInt(v: Int64 | null | undefined, unsigned: boolean): bigint {
  if (v === null || v === undefined) return 0n;
  if (typeof v === 'number') return BigInt(Math.trunc(v));
  if (typeof v === 'string') return BigInt(v);
  const bits = BigInt(v.high >>> 0) * TWO_POW_32 + BigInt(v.low >>> 0);
  return unsigned || v.unsigned ? bits : BigInt.asIntN(64, bits);
}

/** Decimal string of an int64 AnyValue; the common small values avoid bigint. */
function int64Text(v: Int64): string {
  if (typeof v === 'number') return String(Math.trunc(v));
  if (typeof v === 'string') return v;
  if ((v.high === 0 && v.low >= 0) || (v.high === -1 && v.low < 0 && !v.unsigned)) return String(v.low);
  return toBigInt(v, false).toString();
}

const NANO_PAD = '000000000';

/** Unix nanoseconds -> the DateTime64(9) text form, exact. */
export function nanoTime(ns: bigint): NanoTime {
  if (ns <= 0n) return '0.000000000';
  const s = ns.toString();
  if (s.length <= 9) return `0.${NANO_PAD.slice(s.length)}${s}`;
  return `${s.slice(0, -9)}.${s.slice(-9)}`;
}

function base64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

function hex(bytes: Uint8Array | null | undefined): string {
  if (!bytes || bytes.length === 0) return '';
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** An id of exactly `length` bytes, not all zero (the OTLP definition of a valid id), as lowercase hex. */
function validId(bytes: Uint8Array | null | undefined, length: number): string | undefined {
  if (!bytes || bytes.length !== length) return undefined;
  for (let i = 0; i < length; i++) if (bytes[i] !== 0) return hex(bytes);
  return undefined;
}

/** An AnyValue as a JSON value (for arrays and maps inside one map entry). */
function jsonValue(v: AnyValue | null | undefined): unknown {
  if (!v) return null;
  if (v.stringValue != null) return v.stringValue;
  if (v.boolValue != null) return v.boolValue;
  if (v.intValue != null) {
    const text = int64Text(v.intValue);
    const n = Number(text);
    return Number.isSafeInteger(n) ? n : text;
  }
  if (v.doubleValue != null) return Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue);
  if (v.arrayValue != null) return v.arrayValue.values.map(jsonValue);
  if (v.kvlistValue != null) {
    const o: Record<string, unknown> = {};
    for (const kv of v.kvlistValue.values) if (kv.key != null) o[kv.key] = jsonValue(kv.value);
    return o;
  }
  if (v.bytesValue != null) return base64(v.bytesValue);
  return null;
}

/** An AnyValue as one map entry: scalars as text, arrays and key-value lists as JSON, bytes as base64. */
export function valueText(v: AnyValue | null | undefined): string {
  if (!v) return '';
  if (v.stringValue != null) return v.stringValue;
  if (v.boolValue != null) return v.boolValue ? 'true' : 'false';
  if (v.intValue != null) return int64Text(v.intValue);
  if (v.doubleValue != null) return String(v.doubleValue);
  if (v.arrayValue != null || v.kvlistValue != null) return JSON.stringify(jsonValue(v));
  if (v.bytesValue != null) return base64(v.bytesValue);
  return '';
}

const kvText = (kv: KeyValue): string => valueText(kv.value);

function attributeMap(list: KeyValue[] | null | undefined): StringMap {
  const m: StringMap = {};
  if (!list) return m;
  for (const kv of list) if (kv.key != null) m[kv.key] = valueText(kv.value);
  return m;
}

function findString(list: KeyValue[] | null | undefined, key: string): string | undefined {
  if (!list) return undefined;
  for (const kv of list) if (kv.key === key) return kv.value?.stringValue ?? undefined;
  return undefined;
}

/** The strings of a string[] value; undefined when it is not an array of strings only. */
function stringArray(v: AnyValue | null | undefined): string[] | undefined {
  const values = v?.arrayValue?.values;
  if (!values) return undefined;
  const out: string[] = new Array(values.length);
  for (let i = 0; i < values.length; i++) {
    const s = values[i]?.stringValue;
    if (s == null) return undefined;
    out[i] = s;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------- tool spans

/**
 * Puts a typed attribute into its column and returns true; returns false when the value is not of the contract's
 * type: the column keeps its default (for `complete`: false, not reported) and the raw value stays in `attributes`.
 */
type ColumnSetter = (row: ToolCallRow, v: AnyValue) => boolean;

function stringColumn(set: (row: ToolCallRow, s: string) => void): ColumnSetter {
  return (row, v) => {
    const s = v.stringValue;
    if (s == null) return false;
    set(row, s);
    return true;
  };
}

function intColumn(set: (row: ToolCallRow, text: string) => boolean): ColumnSetter {
  return (row, v) => (v.intValue == null ? false : set(row, int64Text(v.intValue)));
}

function stringArrayColumn(set: (row: ToolCallRow, a: string[]) => void): ColumnSetter {
  return (row, v) => {
    const a = stringArray(v);
    if (!a) return false;
    set(row, a);
    return true;
  };
}

/** Every attribute that has a typed column in tool_calls, with the contract's type (ATTRIBUTE_TYPES). */
const COLUMN_SETTERS: ReadonlyMap<string, ColumnSetter> = new Map<string, ColumnSetter>([
  // Implied by the table; another operation name (a span recognised by what it carries) stays in `attributes`.
  [GenAi.OPERATION_NAME, (_row, v) => v.stringValue === EXECUTE_TOOL],
  [GenAi.TOOL_NAME, stringColumn((r, s) => (r.tool_name = s))],
  [GenAi.TOOL_CALL_ID, stringColumn((r, s) => (r.tool_call_id = s))],
  [GenAi.CONVERSATION_ID, stringColumn((r, s) => (r.session_id = s))],
  [GenAi.AGENT_NAME, stringColumn((r, s) => (r.agent_name = s))],
  [GenAi.AGENT_ID, stringColumn((r, s) => (r.agent_id = s))],
  [Attr.EFFECT, stringColumn((r, s) => (r.effect = s))],
  [Attr.RESULT_STATUS, stringColumn((r, s) => (r.result_status = s))],
  [
    Attr.RESULT_COMPLETE,
    (row, v) => {
      if (v.boolValue == null) return false;
      row.result_complete = v.boolValue;
      row.complete_reported = true;
      return true;
    },
  ],
  [Attr.RESULT_REASONS, stringArrayColumn((r, a) => (r.result_reasons = a))],
  [
    Attr.RESULT_ITEM_COUNT,
    intColumn((r, t) => {
      r.result_item_count = t;
      return true;
    }),
  ],
  [Attr.RESULT_CONTINUATION, stringColumn((r, s) => (r.result_continuation = s))],
  [Attr.SCOPE_RESOURCE, stringColumn((r, s) => (r.scope_resource = s))],
  [Attr.SCOPE_VISIBILITY, stringColumn((r, s) => (r.scope_visibility = s))],
  [Attr.SCOPE_SNAPSHOT, stringColumn((r, s) => (r.scope_snapshot = s))],
  [Attr.WARNINGS, stringArrayColumn((r, a) => (r.warnings = a))],
  [Attr.MUTATION_BASIS, stringColumn((r, s) => (r.mutation_basis = s))],
  [
    Attr.MUTATION_TARGET_COUNT,
    intColumn((r, t) => {
      r.mutation_target_count = t;
      return true;
    }),
  ],
  [Attr.MUTATION_EVIDENCE_SNAPSHOTS, stringArrayColumn((r, a) => (r.evidence_snapshots = a))],
  [Attr.MUTATION_EVIDENCE_CALL_IDS, stringArrayColumn((r, a) => (r.evidence_call_ids = a))],
  [Attr.GUARD_DECISION, stringColumn((r, s) => (r.guard_decision = s))],
  // UInt64 column: a negative sequence is kept raw in `attributes`.
  [
    Attr.SESSION_SEQUENCE,
    intColumn((r, t) => {
      if (t.startsWith('-')) return false;
      r.sequence = t;
      return true;
    }),
  ],
]);

// The contract's declared type for each typed tooltrail attribute must match the setter used above.
for (const [key, type] of Object.entries(ATTRIBUTE_TYPES)) {
  if (COLUMN_SETTERS.has(key) || key === Attr.TENANT || MAP_ONLY_ATTRIBUTES.has(key as AttrName)) continue;
  throw new Error(`flatten: contract attribute ${key} (${type}) has no tool_calls column`);
}

/** Allowed values of the enumerated contract attributes: a value outside the list is not put in its column. */
const ENUM_SETS: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  Object.entries(ENUM_VALUES).map(([k, values]) => [k, new Set(values)]),
);

const WARNING_EVENT = WarningEvent.NAME;
const WARNING_CODE = WarningEvent.CODE;
const WARNING_SOURCE = WarningEvent.SOURCE;
const WARNING_MESSAGE = WarningEvent.MESSAGE;
const TENANT = Attr.TENANT;
const SERVICE_NAME = OtelResource.SERVICE_NAME;
/**
 * Shared by rows without events, links, reasons, warnings, evidence or other attributes: never mutated (rows are
 * read-only once built; the column setters assign new arrays). Rows live until their batch is inserted, so every
 * object spared per row is one less for the garbage collector to copy out of the young generation.
 */
const NO_STRINGS: string[] = [];
const NO_MAPS: StringMap[] = [];
const NO_ATTRIBUTES: StringMap = {};

/** A contract problem the pipeline records on the stored tool call (contract/attribute-values.ts). */
interface Flag {
  code: PipelineWarningCode;
  source: string;
  message: string;
}

function withFlag(flags: Flag[] | undefined, flag: Flag): Flag[] {
  if (flags === undefined) return [flag];
  flags.push(flag);
  return flags;
}

/**
 * Judges a contract attribute its column did not take: a safe coercion fills the column, anything else leaves it
 * at its default (unknown). Either way the raw value stays in `attributes` and the flag is returned.
 */
function contractFlag(
  row: ToolCallRow,
  key: AttrName,
  v: AnyValue | null | undefined,
  setter: ColumnSetter | undefined,
): Flag | undefined {
  const verdict = judgeContractAttribute(key, v);
  if (verdict.kind === 'ok') return undefined;
  if (verdict.kind === 'coerced' && setter !== undefined) {
    if (verdict.int !== undefined) setter(row, { intValue: verdict.int });
    else if (verdict.strings !== undefined)
      setter(row, { arrayValue: { values: verdict.strings.map((s) => ({ stringValue: s })) } });
  }
  return { code: verdict.code, source: key, message: verdict.message };
}

interface SpanContext {
  tenant: string;
  serviceName: string;
  resourceAttributes: StringMap;
  scopeName: string;
  scopeVersion: string;
}

interface CommonFields {
  traceId: string;
  spanId: string;
  startNs: bigint;
  endNs: bigint;
  startTime: NanoTime;
  endTime: NanoTime;
}

const INT64_MAX = 0x7fffffffffffffffn;
const SAFE_MAX = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * tool_calls.duration_ns as ClickHouse derives it (an ALIAS since migration 0006): max(end - start, 0) over the
 * Int64 nanoseconds the table holds, exact (a decimal string beyond 2^53). The row keeps it only for its digest,
 * which must equal what `tooltrail verify` reads back; it is not inserted.
 */
export function derivedDurationNs(startNs: bigint, endNs: bigint): number | string {
  // Instants past 2262 do not fit DateTime64(9): they arrive wrapped to Int64, and so does the subtraction.
  const d =
    startNs <= INT64_MAX && endNs <= INT64_MAX
      ? endNs - startNs
      : BigInt.asIntN(64, BigInt.asIntN(64, endNs) - BigInt.asIntN(64, startNs));
  if (d <= 0n) return 0;
  return d <= SAFE_MAX ? Number(d) : d.toString();
}

function eventsOf(span: Span, startTime: NanoTime) {
  const events = span.events ?? [];
  if (events.length === 0) return { times: NO_STRINGS, names: NO_STRINGS, attrs: NO_MAPS };
  const times: NanoTime[] = new Array(events.length);
  const names: string[] = new Array(events.length);
  const attrs: StringMap[] = new Array(events.length);
  for (let i = 0; i < events.length; i++) {
    const e = events[i]!;
    const t = toBigInt(e.timeUnixNano, true);
    times[i] = t > 0n ? nanoTime(t) : startTime;
    names[i] = e.name ?? '';
    attrs[i] = attributeMap(e.attributes);
  }
  return { times, names, attrs };
}

function linksOf(span: Span) {
  const links = span.links ?? [];
  if (links.length === 0) return { traceIds: NO_STRINGS, spanIds: NO_STRINGS, states: NO_STRINGS, attrs: NO_MAPS };
  const traceIds: string[] = new Array(links.length);
  const spanIds: string[] = new Array(links.length);
  const states: string[] = new Array(links.length);
  const attrs: StringMap[] = new Array(links.length);
  for (let i = 0; i < links.length; i++) {
    const l = links[i]!;
    traceIds[i] = hex(l.traceId);
    spanIds[i] = hex(l.spanId);
    states[i] = l.traceState ?? '';
    attrs[i] = attributeMap(l.attributes);
  }
  return { traceIds, spanIds, states, attrs };
}

function toolCallRow(span: Span, ctx: SpanContext, c: CommonFields, out: Rows, inferred: Flag | undefined): void {
  const ev = eventsOf(span, c.startTime);
  const links = linksOf(span);
  const row: ToolCallRow = {
    tenant: ctx.tenant,
    session_id: '',
    sequence: null,
    start_time: c.startTime,
    end_time: c.endTime,
    duration_ns: derivedDurationNs(c.startNs, c.endNs),
    trace_id: c.traceId,
    span_id: c.spanId,
    parent_span_id: hex(span.parentSpanId),
    trace_state: span.traceState ?? '',
    span_name: span.name ?? '',
    span_kind: SPAN_KINDS[span.kind ?? 0] ?? String(span.kind),
    tool_call_id: '',
    tool_name: '',
    agent_name: '',
    agent_id: '',
    service_name: ctx.serviceName,
    scope_name: ctx.scopeName,
    scope_version: ctx.scopeVersion,
    effect: '',
    span_status_code: STATUS_CODES[span.status?.code ?? 0] ?? String(span.status?.code),
    span_status_message: span.status?.message ?? '',
    result_status: '',
    result_complete: false,
    complete_reported: false,
    result_reasons: NO_STRINGS,
    result_item_count: null,
    result_continuation: '',
    scope_resource: '',
    scope_visibility: '',
    scope_snapshot: '',
    warnings: NO_STRINGS,
    mutation_basis: '',
    mutation_target_count: null,
    evidence_snapshots: NO_STRINGS,
    evidence_call_ids: NO_STRINGS,
    guard_decision: '',
    attributes: NO_ATTRIBUTES,
    resource_attributes: ctx.resourceAttributes,
    event_times: ev.times,
    event_names: ev.names,
    event_attributes: ev.attrs,
    link_trace_ids: links.traceIds,
    link_span_ids: links.spanIds,
    link_trace_states: links.states,
    link_attributes: links.attrs,
  };
  let flags: Flag[] | undefined;
  if (inferred) flags = [inferred];
  for (const kv of span.attributes ?? []) {
    const key = kv.key;
    if (key == null) continue;
    const setter = COLUMN_SETTERS.get(key);
    if (setter !== undefined) {
      const v = kv.value;
      const allowed = ENUM_SETS.get(key);
      if (v && (allowed === undefined || (v.stringValue != null && allowed.has(v.stringValue))) && setter(row, v)) {
        continue;
      }
      const flag = isJudgedContractKey(key) ? contractFlag(row, key, v, setter) : undefined;
      if (flag) flags = withFlag(flags, flag);
    } else if (isJudgedContractKey(key)) {
      // A contract attribute without a column (contract MAP_ONLY_ATTRIBUTES): judged all the same.
      const flag = contractFlag(row, key, kv.value, undefined);
      if (flag) flags = withFlag(flags, flag);
    }
    if (row.attributes === NO_ATTRIBUTES) row.attributes = {};
    row.attributes[key] = valueText(kv.value);
  }
  if (flags) {
    const codes = flags
      .map((f) => f.code)
      .filter((code, i, all) => all.indexOf(code) === i && !row.warnings.includes(code));
    row.warnings = [...row.warnings, ...codes];
  }
  out.toolCalls.push(row);

  for (let i = 0; i < ev.names.length; i++) {
    if (ev.names[i] !== WARNING_EVENT) continue;
    const a = ev.attrs[i]!;
    const w: WarningRow = {
      tenant: ctx.tenant,
      time: ev.times[i]!,
      code: a[WARNING_CODE] ?? '',
      source: a[WARNING_SOURCE] ?? '',
      message: a[WARNING_MESSAGE] ?? '',
      tool_name: row.tool_name,
      agent_name: row.agent_name,
      session_id: row.session_id,
      trace_id: row.trace_id,
      span_id: row.span_id,
    };
    out.warnings.push(w);
  }
  for (const f of flags ?? []) {
    out.warnings.push({
      tenant: ctx.tenant,
      time: c.startTime,
      code: f.code,
      source: f.source,
      message: f.message,
      tool_name: row.tool_name,
      agent_name: row.agent_name,
      session_id: row.session_id,
      trace_id: row.trace_id,
      span_id: row.span_id,
    });
  }
}

function spanRow(span: Span, ctx: SpanContext, c: CommonFields, out: Rows, hashKey: string | undefined): void {
  const ev = eventsOf(span, c.startTime);
  const links = linksOf(span);
  const row: SpanRow = {
    Tenant: ctx.tenant,
    Timestamp: c.startTime,
    TraceId: c.traceId,
    SpanId: c.spanId,
    ParentSpanId: hex(span.parentSpanId),
    TraceState: span.traceState ?? '',
    SpanName: span.name ?? '',
    SpanKind: SPAN_KINDS[span.kind ?? 0] ?? String(span.kind),
    ServiceName: ctx.serviceName,
    ResourceAttributes: ctx.resourceAttributes,
    ScopeName: ctx.scopeName,
    ScopeVersion: ctx.scopeVersion,
    SpanAttributes: attributeMap(span.attributes && withoutContent(span.attributes, hashKey, kvText)),
    // A clock that stepped back gives end < start: store 0 rather than wrap the UInt64.
    Duration: c.endNs > c.startNs ? Number(c.endNs - c.startNs) : 0,
    StatusCode: STATUS_CODES[span.status?.code ?? 0] ?? String(span.status?.code),
    StatusMessage: span.status?.message ?? '',
    'Events.Timestamp': ev.times,
    'Events.Name': ev.names,
    'Events.Attributes': ev.attrs,
    'Links.TraceId': links.traceIds,
    'Links.SpanId': links.spanIds,
    'Links.TraceState': links.states,
    'Links.Attributes': links.attrs,
  };
  out.spans.push(row);
}

// ---------------------------------------------------------------------------------------------- request

/** Appends the rows of `request` to `out` (so a batch of messages fills one set of arrays). */
export function flattenInto(
  out: FlattenResult,
  request: ExportTraceServiceRequest,
  options: FlattenOptions = {},
): void {
  const resourceSpans: ResourceSpans[] = request.resourceSpans ?? [];
  let emitterRequest: EmitterRequest | undefined;
  for (let r = 0; r < resourceSpans.length; r++) {
    const rs = resourceSpans[r]!;
    const resourceAttrs = rs.resource?.attributes;
    const tenant = options.tenant || findString(resourceAttrs, TENANT) || options.defaultTenant;
    // A third-party collector's resource may claim any tenant: only the one tenant rule's names are stored.
    const tenantValid = tenant === undefined || tenant === options.tenant || isValidTenant(tenant);
    const resourceAttributes = attributeMap(resourceAttrs);
    const serviceName = findString(resourceAttrs, SERVICE_NAME) ?? '';
    const scopeSpans: ScopeSpans[] = rs.scopeSpans ?? [];
    for (let s = 0; s < scopeSpans.length; s++) {
      const ss = scopeSpans[s]!;
      const ctx: SpanContext = {
        tenant: tenant ?? '',
        serviceName,
        resourceAttributes,
        scopeName: ss.scope?.name ?? '',
        scopeVersion: ss.scope?.version ?? '',
      };
      const spans = ss.spans ?? [];
      for (let i = 0; i < spans.length; i++) {
        const span = spans[i]!;
        const traceId = validId(span.traceId, 16);
        const spanId = validId(span.spanId, 8);
        const reason: RejectReason | undefined = !tenant
          ? 'missing_tenant'
          : !tenantValid
            ? 'invalid_tenant'
            : traceId === undefined
              ? 'invalid_trace_id'
              : spanId === undefined
                ? 'invalid_span_id'
                : undefined;
        if (reason !== undefined || traceId === undefined || spanId === undefined) {
          out.rejected.push({ reason: reason ?? 'invalid_span_id', resourceIndex: r, scopeIndex: s, spanIndex: i });
          continue;
        }
        const startNs = toBigInt(span.startTimeUnixNano, true);
        const endNs = toBigInt(span.endTimeUnixNano, true);
        const common: CommonFields = {
          traceId,
          spanId,
          startNs,
          endNs,
          startTime: nanoTime(startNs),
          endTime: nanoTime(endNs),
        };
        const emitter = recognizeEmitter(span.attributes);
        if (emitter !== undefined) {
          emitterRequest ??= new EmitterRequest(request, options.emitters ?? {});
          const attributes = normalizeToolSpan(span, emitter, emitterRequest);
          toolCallRow({ ...span, attributes }, ctx, common, out, undefined);
          continue;
        }
        const tool = recognizeToolSpan(span.attributes);
        if (tool.kind === 'other') spanRow(span, ctx, common, out, options.emitters?.payloadHashKey);
        else
          toolCallRow(
            span,
            ctx,
            common,
            out,
            tool.kind === 'inferred'
              ? { code: tool.code, source: GenAi.OPERATION_NAME, message: tool.message }
              : undefined,
          );
      }
    }
  }
}

export function emptyFlattenResult(): FlattenResult {
  return { ...emptyRows(), rejected: [] };
}

/** The rows of one request. */
export function flatten(request: ExportTraceServiceRequest, options: FlattenOptions = {}): FlattenResult {
  const out = emptyFlattenResult();
  flattenInto(out, request, options);
  return out;
}

/** A request holding only the given spans of `request` (with their resource and scope), e.g. to dead-letter them. */
export function selectSpans(
  request: ExportTraceServiceRequest,
  which: readonly Pick<RejectedSpan, 'resourceIndex' | 'scopeIndex' | 'spanIndex'>[],
): ExportTraceServiceRequest {
  const byResource = new Map<number, Map<number, number[]>>();
  for (const w of which) {
    const scopes = byResource.get(w.resourceIndex) ?? new Map<number, number[]>();
    byResource.set(w.resourceIndex, scopes);
    const spans = scopes.get(w.scopeIndex) ?? [];
    scopes.set(w.scopeIndex, spans);
    spans.push(w.spanIndex);
  }
  const resourceSpans: ResourceSpans[] = [];
  for (const [r, scopes] of [...byResource].sort((a, b) => a[0] - b[0])) {
    const rs = request.resourceSpans[r];
    if (!rs) continue;
    const scopeSpans: ScopeSpans[] = [];
    for (const [s, spanIdx] of [...scopes].sort((a, b) => a[0] - b[0])) {
      const ss = rs.scopeSpans[s];
      if (!ss) continue;
      const spans = spanIdx
        .sort((a, b) => a - b)
        .map((i) => ss.spans[i])
        .filter((x): x is Span => x !== undefined);
      scopeSpans.push({ scope: ss.scope ?? null, schemaUrl: ss.schemaUrl ?? null, spans });
    }
    resourceSpans.push({ resource: rs.resource ?? null, schemaUrl: rs.schemaUrl ?? null, scopeSpans });
  }
  return { resourceSpans };
}
