/** One row per span from the reader's view: a tool_calls row (and its warnings rows) or a spans row. */
import {
  events as events$,
  slots as slots$,
  span as span$,
  V_BOOL as V_BOOL$,
  V_INT as V_INT$,
  V_STRING as V_STRING$,
  V_STRINGS as V_STRINGS$,
} from '../../platform/otlp/reader/index.ts';
import {
  findKey as findKey$,
  writeEnum as writeEnum$,
  writeEventsAndLinks as writeEventsAndLinks$,
  writeEventTime as writeEventTime$,
  writeHex as writeHex$,
  writeMap as writeMap$,
  writeNullable as writeNullable$,
  writeSlotString as writeSlotString$,
  writeString as writeString$,
  writeStrings as writeStrings$,
  writeValueText as writeValueText$,
} from './cells.ts';
import { decline } from './decline.ts';
import { SP as SP$, TC as TC$, W as W$ } from './layout.ts';
import {
  allowedValue as allowedValue$,
  same as same$,
  source as sourceImport,
  startsWith as startsWith$,
} from './source.ts';
import type { Stream } from './stream.ts';
import {
  CONTENT_PREFIXES as CONTENT_PREFIXES$,
  EMITTER_MARKS as EMITTER_MARKS$,
  K_CODE as K_CODE$,
  K_COMPLETE as K_COMPLETE$,
  K_ITEM_COUNT as K_ITEM_COUNT$,
  K_MESSAGE as K_MESSAGE$,
  K_OPERATION_KIND as K_OPERATION_KIND$,
  K_SEQUENCE as K_SEQUENCE$,
  K_SOURCE as K_SOURCE$,
  K_STRING as K_STRING$,
  K_STRINGS as K_STRINGS$,
  K_TARGET_COUNT as K_TARGET_COUNT$,
  MAP_ONLY_BY_HASH as MAP_ONLY_BY_HASH$,
  SLOT_AGENT_NAME as SLOT_AGENT_NAME$,
  SLOT_SESSION_ID as SLOT_SESSION_ID$,
  SLOT_TOOL_NAME as SLOT_TOOL_NAME$,
  SPAN_KINDS as SPAN_KINDS$,
  STATUS_CODES as STATUS_CODES$,
  STRING_COLUMNS as STRING_COLUMNS$,
  STRINGS_COLUMNS as STRINGS_COLUMNS$,
  T_OPERATION as T_OPERATION$,
  T_TOOL_NAME as T_TOOL_NAME$,
  TOOL_SHAPE_BY_HASH as TOOL_SHAPE_BY_HASH$,
  TYPED_ALLOWED as TYPED_ALLOWED$,
  TYPED_BY_HASH as TYPED_BY_HASH$,
  TYPED_CONTRACT as TYPED_CONTRACT$,
  TYPED_KEYS as TYPED_KEYS$,
  TYPED_KIND as TYPED_KIND$,
  TYPED_SLOT as TYPED_SLOT$,
  V_EXECUTE_TOOL as V_EXECUTE_TOOL$,
  WARNING_EVENT as WARNING_EVENT$,
} from './typed.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const events = events$;
const slots = slots$;
const span = span$;
const V_BOOL = V_BOOL$;
const V_INT = V_INT$;
const V_STRING = V_STRING$;
const V_STRINGS = V_STRINGS$;
const findKey = findKey$;
const writeEnum = writeEnum$;
const writeEventsAndLinks = writeEventsAndLinks$;
const writeEventTime = writeEventTime$;
const writeHex = writeHex$;
const writeMap = writeMap$;
const writeNullable = writeNullable$;
const writeSlotString = writeSlotString$;
const writeString = writeString$;
const writeStrings = writeStrings$;
const writeValueText = writeValueText$;
const SP = SP$;
const TC = TC$;
const W = W$;
const allowedValue = allowedValue$;
const same = same$;
const startsWith = startsWith$;
const source = sourceImport;
const CONTENT_PREFIXES = CONTENT_PREFIXES$;
const EMITTER_MARKS = EMITTER_MARKS$;
const K_CODE = K_CODE$;
const K_COMPLETE = K_COMPLETE$;
const K_ITEM_COUNT = K_ITEM_COUNT$;
const K_MESSAGE = K_MESSAGE$;
const K_OPERATION_KIND = K_OPERATION_KIND$;
const K_SEQUENCE = K_SEQUENCE$;
const K_SOURCE = K_SOURCE$;
const K_STRING = K_STRING$;
const K_STRINGS = K_STRINGS$;
const K_TARGET_COUNT = K_TARGET_COUNT$;
const MAP_ONLY_BY_HASH = MAP_ONLY_BY_HASH$;
const SLOT_AGENT_NAME = SLOT_AGENT_NAME$;
const SLOT_SESSION_ID = SLOT_SESSION_ID$;
const SLOT_TOOL_NAME = SLOT_TOOL_NAME$;
const SPAN_KINDS = SPAN_KINDS$;
const STATUS_CODES = STATUS_CODES$;
const STRING_COLUMNS = STRING_COLUMNS$;
const STRINGS_COLUMNS = STRINGS_COLUMNS$;
const T_OPERATION = T_OPERATION$;
const T_TOOL_NAME = T_TOOL_NAME$;
const TOOL_SHAPE_BY_HASH = TOOL_SHAPE_BY_HASH$;
const TYPED_ALLOWED = TYPED_ALLOWED$;
const TYPED_BY_HASH = TYPED_BY_HASH$;
const TYPED_CONTRACT = TYPED_CONTRACT$;
const TYPED_KEYS = TYPED_KEYS$;
const TYPED_KIND = TYPED_KIND$;
const TYPED_SLOT = TYPED_SLOT$;
const V_EXECUTE_TOOL = V_EXECUTE_TOOL$;
const WARNING_EVENT = WARNING_EVENT$;

/** A resource as its rows need it: tenant and service encoded, its attributes as Native map parts, once. */
export interface ResourceCells {
  tenant: Buffer;
  service: Buffer;
  kvFrom: number;
  kvTo: number;
  mapKeys: Buffer;
  mapValues: Buffer;
}

/** The resource attributes column of one row. */
function writeResourceMap(counts: Stream, keys: Stream, values: Stream, res: ResourceCells): void {
  counts.count(res.kvTo - res.kvFrom);
  keys.encoded(res.mapKeys);
  values.encoded(res.mapValues);
}

/** A warning column: the event attribute's text, '' when absent. */
function writeEventAttribute(out: Stream, ev: { kvFrom: number; kvTo: number }, key: Buffer): void {
  const i = findKey(ev.kvFrom, ev.kvTo, key);
  if (i < 0) out.u8(0);
  else writeValueText(out, i);
}

const stringSlot = new Int32Array(STRING_COLUMNS.length);
const stringsSlot = new Int32Array(STRINGS_COLUMNS.length);
let extra = new Int32Array(64);

/** Rows written per table since the message began (reset by decode.ts). */
export const counts = { toolCalls: 0, warnings: 0, spans: 0 };

export function writeToolCall(
  st: Stream[],
  res: ResourceCells,
  scopeName: number,
  scopeNameLen: number,
  scopeVersion: number,
  scopeVersionLen: number,
): void {
  stringSlot.fill(-1);
  stringsSlot.fill(-1);
  let complete = -1;
  let itemCount = -1;
  let targetCount = -1;
  let sequence = -1;
  let extras = 0;
  // An execute_tool span without any contract attribute is another emitter's: flatten normalises it.
  let contract = false;
  for (let i = span.attrFrom; i < span.attrTo; i++) {
    let typed = TYPED_BY_HASH.get(slots.hash[i]!) ?? -1;
    if (typed >= 0 && !same(slots.key[i]!, slots.keyLen[i]!, TYPED_KEYS[typed]!)) typed = -1;
    if (typed >= 0) {
      if (TYPED_CONTRACT[typed] !== 0) contract = true;
      const kind = slots.kind[i];
      switch (TYPED_KIND[typed]) {
        case K_OPERATION_KIND:
          if (kind === V_STRING) continue;
          break;
        case K_STRING:
          if (kind === V_STRING) {
            const allowed = TYPED_ALLOWED[typed];
            if (allowed !== undefined && !allowedValue(allowed, slots.a[i]!, slots.b[i]!)) decline('flagged_attribute');
            stringSlot[TYPED_SLOT[typed]!] = i;
            continue;
          }
          break;
        case K_COMPLETE:
          if (kind === V_BOOL) {
            complete = i;
            continue;
          }
          break;
        case K_STRINGS:
          if (kind === V_STRINGS) {
            stringsSlot[TYPED_SLOT[typed]!] = i;
            continue;
          }
          break;
        case K_ITEM_COUNT:
          if (kind === V_INT) {
            itemCount = i;
            continue;
          }
          break;
        case K_TARGET_COUNT:
          if (kind === V_INT) {
            targetCount = i;
            continue;
          }
          break;
        case K_SEQUENCE:
          if (kind === V_INT && slots.b[i]! >= 0) {
            sequence = i;
            continue;
          }
          // A negative sequence stays in `attributes`, unflagged, as flatten keeps it.
          if (kind === V_INT) typed = -1;
          break;
      }
      // A contract attribute of another kind is stored flagged (or coerced): flatten's.
      if (typed >= 0 && TYPED_CONTRACT[typed] !== 0) decline('flagged_attribute');
    } else {
      // A map-only contract attribute of another kind or value is stored flagged: flatten's.
      const rule = MAP_ONLY_BY_HASH.get(slots.hash[i]!);
      if (rule !== undefined && same(slots.key[i]!, slots.keyLen[i]!, rule.key)) {
        contract = true;
        if (
          slots.kind[i] !== rule.kind ||
          (rule.allowed !== undefined && !allowedValue(rule.allowed, slots.a[i]!, slots.b[i]!))
        ) {
          decline('flagged_attribute');
        }
      }
    }
    if (extras === extra.length) {
      const e = new Int32Array(extra.length * 2);
      e.set(extra);
      extra = e;
    }
    extra[extras++] = i;
  }
  if (!contract) decline('emitter_tool_span');

  st[TC.tenant]!.encoded(res.tenant);
  st[TC.start_time]!.raw8(source.buf, span.start);
  st[TC.end_time]!.raw8(source.buf, span.end);
  st[TC.trace_id]!.hex(source.buf, span.traceId, 16);
  st[TC.span_id]!.hex(source.buf, span.spanId, 8);
  writeHex(st[TC.parent_span_id]!, span.parent, span.parentLen);
  writeString(st[TC.trace_state]!, span.traceState, span.traceStateLen);
  writeString(st[TC.span_name]!, span.name, span.nameLen);
  writeEnum(st[TC.span_kind]!, SPAN_KINDS, span.kind);
  st[TC.service_name]!.encoded(res.service);
  writeString(st[TC.scope_name]!, scopeName, scopeNameLen);
  writeString(st[TC.scope_version]!, scopeVersion, scopeVersionLen);
  writeEnum(st[TC.span_status_code]!, STATUS_CODES, span.statusCode);
  writeString(st[TC.span_status_message]!, span.statusMessage, span.statusMessageLen);
  for (let c = 0; c < STRING_COLUMNS.length; c++) writeSlotString(st[STRING_COLUMNS[c]!]!, stringSlot[c]!);
  for (let c = 0; c < STRINGS_COLUMNS.length; c++) {
    const i = stringsSlot[c]!;
    const s = STRINGS_COLUMNS[c]!;
    if (i < 0) st[s]!.count(0);
    else writeStrings(st[s]!, st[s + 1]!, i);
  }
  st[TC.result_complete]!.u8(complete >= 0 ? slots.a[complete]! : 0);
  st[TC.complete_reported]!.u8(complete >= 0 ? 1 : 0);
  writeNullable(st, TC.sequence, sequence);
  writeNullable(st, TC.result_item_count, itemCount);
  writeNullable(st, TC.mutation_target_count, targetCount);
  // attributes: the slots no typed column took, in their order.
  st[TC.attributes]!.count(extras);
  for (let k = 0; k < extras; k++)
    st[TC.attributes + 1]!.strFrom(source.buf, slots.key[extra[k]!]!, slots.keyLen[extra[k]!]!);
  for (let k = 0; k < extras; k++) writeValueText(st[TC.attributes + 2]!, extra[k]!);
  writeResourceMap(st[TC.resource_attributes]!, st[TC.resource_attributes + 1]!, st[TC.resource_attributes + 2]!, res);
  writeEventsAndLinks(
    st,
    TC.event_times,
    TC.event_names,
    TC.event_attributes,
    TC.link_trace_ids,
    TC.link_span_ids,
    TC.link_trace_states,
    TC.link_attributes,
  );
  counts.toolCalls++;

  for (let k = 0; k < events.count; k++) {
    const ev = events.list[k]!;
    if (ev.name < 0 || !same(ev.name, ev.nameLen, WARNING_EVENT)) continue;
    st[W.tenant]!.encoded(res.tenant);
    writeEventTime(st[W.time]!, ev.time);
    writeEventAttribute(st[W.code]!, ev, K_CODE);
    writeEventAttribute(st[W.source]!, ev, K_SOURCE);
    writeEventAttribute(st[W.message]!, ev, K_MESSAGE);
    writeSlotString(st[W.tool_name]!, stringSlot[SLOT_TOOL_NAME]!);
    writeSlotString(st[W.agent_name]!, stringSlot[SLOT_AGENT_NAME]!);
    writeSlotString(st[W.session_id]!, stringSlot[SLOT_SESSION_ID]!);
    st[W.trace_id]!.hex(source.buf, span.traceId, 16);
    st[W.span_id]!.hex(source.buf, span.spanId, 8);
    counts.warnings++;
  }
}

export function writeSpan(
  st: Stream[],
  res: ResourceCells,
  scopeName: number,
  scopeNameLen: number,
  scopeVersion: number,
  scopeVersionLen: number,
): void {
  st[SP.Tenant]!.encoded(res.tenant);
  st[SP.Timestamp]!.raw8(source.buf, span.start);
  st[SP.TraceId]!.hex(source.buf, span.traceId, 16);
  st[SP.SpanId]!.hex(source.buf, span.spanId, 8);
  writeHex(st[SP.ParentSpanId]!, span.parent, span.parentLen);
  writeString(st[SP.TraceState]!, span.traceState, span.traceStateLen);
  writeString(st[SP.SpanName]!, span.name, span.nameLen);
  writeEnum(st[SP.SpanKind]!, SPAN_KINDS, span.kind);
  st[SP.ServiceName]!.encoded(res.service);
  writeResourceMap(st[SP.ResourceAttributes]!, st[SP.ResourceAttributes + 1]!, st[SP.ResourceAttributes + 2]!, res);
  writeString(st[SP.ScopeName]!, scopeName, scopeNameLen);
  writeString(st[SP.ScopeVersion]!, scopeVersion, scopeVersionLen);
  writeMap(st[SP.SpanAttributes]!, st[SP.SpanAttributes + 1]!, st[SP.SpanAttributes + 2]!, span.attrFrom, span.attrTo);
  // Duration: end - start when positive (a stepped-back clock stores 0), exact below 2^53 (else general path).
  const slo = source.buf.readUInt32LE(span.start);
  const shi = source.buf.readUInt32LE(span.start + 4);
  const elo = source.buf.readUInt32LE(span.end);
  const ehi = source.buf.readUInt32LE(span.end + 4);
  if (ehi > shi || (ehi === shi && elo > slo)) {
    let lo = elo - slo;
    let hi = ehi - shi;
    if (lo < 0) {
      lo += 4294967296;
      hi -= 1;
    }
    if (hi >= 0x200000) decline('duration');
    st[SP.Duration]!.u64Halves(lo, hi);
  } else st[SP.Duration]!.u64Halves(0, 0);
  writeEnum(st[SP.StatusCode]!, STATUS_CODES, span.statusCode);
  writeString(st[SP.StatusMessage]!, span.statusMessage, span.statusMessageLen);
  writeEventsAndLinks(
    st,
    SP.EventsTimestamp,
    SP.EventsName,
    SP.EventsAttributes,
    SP.LinksTraceId,
    SP.LinksSpanId,
    SP.LinksTraceState,
    SP.LinksAttributes,
  );
  counts.spans++;
}

/**
 * Whether the span is an execute_tool span. One that is a tool call only by what it carries (a contract attribute,
 * or a tool name without an operation name: contract/attribute-values.ts), or another emitter's tool span (an
 * OpenInference or OpenLLMetry tool kind, an AI SDK tool call, an MCP `tools/call`), takes the general path.
 */
export function isToolSpan(): boolean {
  let operation = false;
  let toolName = false;
  let contract = false;
  let content = false;
  for (let i = span.attrFrom; i < span.attrTo; i++) {
    const code = TOOL_SHAPE_BY_HASH.get(slots.hash[i]!);
    if (code === undefined) {
      if (!content && contentPrefixed(slots.key[i]!, slots.keyLen[i]!)) content = true;
      continue;
    }
    if (code < 0) {
      const mark = EMITTER_MARKS[-1 - code]!;
      if (
        same(slots.key[i]!, slots.keyLen[i]!, mark.key) &&
        (mark.value === undefined || (slots.kind[i] === V_STRING && same(slots.a[i]!, slots.b[i]!, mark.value)))
      ) {
        if (mark.content) content = true;
        else decline('emitter_tool_span');
      }
      continue;
    }
    if (!same(slots.key[i]!, slots.keyLen[i]!, TYPED_KEYS[code]!)) continue;
    if (code === T_OPERATION) {
      if (slots.kind[i] === V_STRING && same(slots.a[i]!, slots.b[i]!, V_EXECUTE_TOOL)) return true;
      operation = true;
    } else if (code === T_TOOL_NAME) toolName = true;
    else if (TYPED_CONTRACT[code] === 2) contract = true;
  }
  if (contract || (toolName && !operation)) decline('tool_call_shape');
  // Prompts, messages and payloads on a span that is not a tool call: flatten keeps their HMACs or nothing.
  if (content) decline('content_attribute');
  return false;
}

/** Whether the key starts with a content prefix (an indexed one followed by a digit). */
function contentPrefixed(at: number, len: number): boolean {
  for (let p = 0; p < CONTENT_PREFIXES.length; p++) {
    const prefix = CONTENT_PREFIXES[p]!;
    if (!startsWith(at, len, prefix.bytes)) continue;
    if (!prefix.indexed) return true;
    const c = source.buf[at + prefix.bytes.length];
    if (len > prefix.bytes.length && c !== undefined && c >= 48 && c <= 57) return true;
  }
  return false;
}
