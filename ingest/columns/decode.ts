/**
 * OTLP protobuf bytes -> Native column bytes, with no object per span, row or attribute: the ingest's fast path
 * (ingest/README.md, "Throughput"). The one OTLP reader (platform/otlp/reader) walks each message once; its rows
 * are appended to the per-column byte streams of the partition's arena (ids become hex, times are copied as the 8
 * bytes they already are, strings as their bytes). The bytes are those
 * `encodeNative(flatten(decodeExportTraceServiceRequest(bytes)))` gives (test/unit/ingest/columns.test.ts).
 *
 * It only handles the plain case and gives up (returns undefined, the arena unchanged) on anything else: bytes
 * outside the reader's subset, a span to reject (no tenant or one outside the tenant rule, a bad id), a span to
 * store flagged (a malformed `tooltrail.*` attribute, a tool call recognised only by what it carries), a value
 * that is bytes or a key-value list, an array of anything but strings, a repeated or array-index-like key, scope
 * attributes. Each decline has a named reason (decline.ts), counted by the ingest; any other error is a bug and is
 * thrown. The caller then takes the general path for that message, which decides everything as it always did
 * (dead letters included).
 */
import { Buffer } from 'node:buffer';
import { Attr as Attr$, isValidTenant as isValidTenant$, OtelResource as OtelResource$ } from '../../contract/index.ts';
import {
  events as events$,
  links as links$,
  readTraceRequest as readTraceRequest$,
  resource as resource$,
  scope as scope$,
  slots as slots$,
  span as span$,
  type TraceRequestVisitor,
  V_STRING as V_STRING$,
} from '../../platform/otlp/reader/index.ts';
import type { FlattenOptions } from '../flatten.ts';
import type { ColumnArena, ColumnsMark } from './arena.ts';
import { checkPlainMap as checkPlainMap$, findKey as findKey$, writeValueText as writeValueText$ } from './cells.ts';
import { type DeclineReason, decline, declined } from './decline.ts';
import { STREAMS as STREAMS$ } from './layout.ts';
import {
  counts as counts$,
  isToolSpan as isToolSpan$,
  type ResourceCells,
  writeSpan as writeSpan$,
  writeToolCall as writeToolCall$,
} from './rows.ts';
import { setSource as setSource$, text as text$ } from './source.ts';
import { encodedString as encodedString$, Stream } from './stream.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const isValidTenant = isValidTenant$;
const Attr = Attr$;
const OtelResource = OtelResource$;
const events = events$;
const links = links$;
const readTraceRequest = readTraceRequest$;
const resource = resource$;
const scope = scope$;
const slots = slots$;
const span = span$;
const V_STRING = V_STRING$;
const checkPlainMap = checkPlainMap$;
const findKey = findKey$;
const writeValueText = writeValueText$;
const STREAMS = STREAMS$;
const counts = counts$;
const isToolSpan = isToolSpan$;
const writeSpan = writeSpan$;
const writeToolCall = writeToolCall$;
const setSource = setSource$;
const text = text$;
const encodedString = encodedString$;

const K_TENANT = Buffer.from(Attr.TENANT);
const K_SERVICE = Buffer.from(OtelResource.SERVICE_NAME);
const EMPTY = Buffer.alloc(0);
const NO_SERVICE = encodedString('');

const scratchKeys = new Stream();
const scratchValues = new Stream();

/** A resource's cells: its tenant (as flatten chooses it), service, and attributes encoded once for all its rows. */
function resourceCells(options: FlattenOptions): ResourceCells {
  const kvFrom = resource.kvFrom;
  const kvTo = resource.kvTo;
  checkPlainMap(kvFrom, kvTo);
  const t = findKey(kvFrom, kvTo, K_TENANT);
  const found = t >= 0 && slots.kind[t] === V_STRING ? text(slots.a[t] as number, slots.b[t] as number) : undefined;
  const tenant = options.tenant || found || options.defaultTenant;
  // No tenant, or a claimed one outside the tenant rule: rejected by the general path.
  if (!tenant || (tenant !== options.tenant && !isValidTenant(tenant))) decline('tenant');
  const s = findKey(kvFrom, kvTo, K_SERVICE);
  const service = s >= 0 && slots.kind[s] === V_STRING ? text(slots.a[s] as number, slots.b[s] as number) : '';
  if (kvTo === kvFrom) {
    return { tenant: encodedString(tenant), service: NO_SERVICE, kvFrom, kvTo, mapKeys: EMPTY, mapValues: EMPTY };
  }
  scratchKeys.pos = 0;
  scratchValues.pos = 0;
  for (let i = kvFrom; i < kvTo; i++) scratchKeys.strFrom(src, slots.key[i] as number, slots.keyLen[i] as number);
  for (let i = kvFrom; i < kvTo; i++) writeValueText(scratchValues, i);
  return {
    tenant: encodedString(tenant),
    service: encodedString(service),
    kvFrom,
    kvTo,
    mapKeys: Buffer.from(scratchKeys.buf.subarray(0, scratchKeys.pos)),
    mapValues: Buffer.from(scratchValues.buf.subarray(0, scratchValues.pos)),
  };
}

/** A non-zero id of exactly `length` bytes (else the span is rejected: general path). */
function checkId(at: number, len: number, length: number): void {
  if (at < 0 || len !== length) decline('id');
  for (let i = 0; i < len; i++) if (src[at + i] !== 0) return;
  decline('id');
}

let src: Buffer = EMPTY;
let streams: Stream[] = [];
let flattenOptions: FlattenOptions = {};
let res: ResourceCells | undefined;

const visitor: TraceRequestVisitor = {
  resource() {
    res = undefined;
    // Resolved on its first span: a resource without spans is no reason to give up.
    if (resource.from < 0) {
      const tenant = flattenOptions.tenant || flattenOptions.defaultTenant;
      res = tenant
        ? { tenant: encodedString(tenant), service: NO_SERVICE, kvFrom: 0, kvTo: 0, mapKeys: EMPTY, mapValues: EMPTY }
        : undefined;
    }
  },
  scope() {
    if (scope.kvTo > scope.kvFrom) decline('scope_attributes');
  },
  span() {
    if (res === undefined) res = resourceCells(flattenOptions);
    checkId(span.traceId, span.traceIdLen, 16);
    checkId(span.spanId, span.spanIdLen, 8);
    if (span.start < 0 || span.end < 0) decline('times');
    checkPlainMap(span.attrFrom, span.attrTo);
    for (let k = 0; k < events.count; k++) {
      const ev = events.list[k] as (typeof events.list)[number];
      checkPlainMap(ev.kvFrom, ev.kvTo);
    }
    for (let k = 0; k < links.count; k++) {
      const l = links.list[k] as (typeof links.list)[number];
      checkPlainMap(l.kvFrom, l.kvTo);
    }
    const sn = scope.name;
    const sv = scope.version;
    if (isToolSpan()) writeToolCall(streams, res, sn, scope.nameLen, sv, scope.versionLen);
    else writeSpan(streams, res, sn, scope.nameLen, sv, scope.versionLen);
  },
};

/**
 * Appends the rows of one OTLP `ExportTraceServiceRequest` to the arena. Returns the mark (rows per table, byte
 * ranges per stream), or undefined when the message needs the general path (the arena is then as before; its
 * reason goes to `declines`). Any other error is a bug: the arena is restored and the error thrown.
 */
export function decodeToColumns(
  arena: ColumnArena,
  bytes: Uint8Array,
  options: FlattenOptions = {},
  declines?: (reason: DeclineReason) => void,
): ColumnsMark | undefined {
  const st = arena.streams;
  // A plain array of small integers: young-generation memory (a typed array this size would be off-heap).
  const ranges: number[] = new Array(2 * STREAMS).fill(0);
  for (let s = 0; s < STREAMS; s++) ranges[2 * s] = (st[s] as Stream).pos;
  src = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  setSource(src);
  streams = st;
  flattenOptions = options;
  counts.toolCalls = 0;
  counts.warnings = 0;
  counts.spans = 0;
  declined.reason = 'wire_subset';
  let read = false;
  try {
    read = readTraceRequest(src, visitor);
  } catch (err) {
    for (let s = 0; s < STREAMS; s++) (st[s] as Stream).pos = ranges[2 * s] as number;
    throw err;
  } finally {
    src = EMPTY;
    setSource(EMPTY);
    streams = [];
    res = undefined;
  }
  if (!read) {
    for (let s = 0; s < STREAMS; s++) (st[s] as Stream).pos = ranges[2 * s] as number;
    declines?.(declined.reason);
    return undefined;
  }
  for (let s = 0; s < STREAMS; s++) ranges[2 * s + 1] = (st[s] as Stream).pos;
  return { toolCalls: counts.toolCalls, warnings: counts.warnings, spans: counts.spans, ranges, seq: arena.seq++ };
}
