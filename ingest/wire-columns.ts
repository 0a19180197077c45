/**
 * OTLP protobuf bytes -> Native column bytes, with no object per span, row or attribute: the ingest's fast path
 * (ingest/README.md, "Throughput"). Each message is read once and its rows are appended to per-column byte
 * streams of the partition's arena (ids become hex, times are copied as the 8 bytes they already are, strings as
 * their bytes); a batch's block is the concatenation of its messages' ranges. The bytes are those
 * `encodeNative(flatten(decodeExportTraceServiceRequest(bytes)))` gives (test/unit/ingest/wire-columns.test.ts).
 *
 * It only handles the plain, well-formed case and gives up (returns false, the arena unchanged) on anything else:
 * a span to reject (no tenant, bad id), a span to store flagged (a malformed `tooltrail.*` attribute, a tool call
 * recognised only by what it carries), a string that is not UTF-8, a value that is bytes or a key-value list, an
 * array of anything but strings, a repeated attribute key, an array-index-like key, scope attributes or entity refs,
 * an unexpected wire type, lengths past their message. The caller then takes the general path for that message,
 * which decides everything the same way it always did (dead letters included).
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { isValidTenant } from '../contract/ids.ts';
import {
  Attr,
  type AttrName,
  ENUM_VALUES,
  EXECUTE_TOOL,
  GenAi,
  isJudgedContractKey,
  marksToolSpan,
  OtelResource,
  WarningEvent,
} from '../contract/index.ts';
import { ByteBuffer } from '../platform/native/byte-buffer.ts';
import type { NativeType } from '../platform/native/encode.ts';
import { nativeTypeName } from '../platform/native/encode.ts';
import { SPAN_NATIVE, TOOL_CALL_NATIVE, WARNING_NATIVE } from '../schema/rows.ts';
import type { FlattenOptions } from './flatten.ts';

// ---------------------------------------------------------------------------------------------- output streams

/** A growable byte stream: one part of one column (its values, or its per-row counts, keys, null map...). */
class Stream extends ByteBuffer {
  constructor() {
    super(1 << 14);
  }

  /** A per-row count (turned into Native's cumulative UInt64 offsets when the block is assembled). */
  count(v: number): void {
    this.ensure(4);
    const buf = this.buf;
    const p = this.pos;
    buf[p] = v;
    buf[p + 1] = v >>> 8;
    buf[p + 2] = v >>> 16;
    buf[p + 3] = v >>> 24;
    this.pos = p + 4;
  }

  /** 8 bytes copied as they are (a fixed64 time). */
  raw8(src: Buffer, at: number): void {
    this.ensure(8);
    const buf = this.buf;
    const p = this.pos;
    for (let i = 0; i < 8; i++) buf[p + i] = src[at + i]!;
    this.pos = p + 8;
  }

  /** A Native String from source bytes already checked to be UTF-8. */
  strFrom(src: Buffer, start: number, len: number): void {
    this.ensure(5 + len);
    if (len < 0x80) this.buf[this.pos++] = len;
    else this.varint(len);
    if (len < 32) {
      const buf = this.buf;
      const p = this.pos;
      for (let i = 0; i < len; i++) buf[p + i] = src[start + i]!;
    } else {
      src.copy(this.buf, this.pos, start, start + len);
    }
    this.pos += len;
  }

  /** A Native String already encoded (length prefix included), e.g. a tenant or an enum name. */
  encoded(b: Buffer): void {
    const n = b.length;
    this.ensure(n);
    if (n <= 32) {
      const buf = this.buf;
      const p = this.pos;
      for (let i = 0; i < n; i++) buf[p + i] = b[i]!;
    } else b.copy(this.buf, this.pos);
    this.pos += n;
  }

  /** A Native String from a JS string. */
  str(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.ensure(5 + n);
    this.varint(n);
    this.pos += this.buf.write(s, this.pos, n, 'utf8');
  }

  /** A Native String holding the lowercase hex of source bytes (an id). */
  hex(src: Buffer, start: number, len: number): void {
    this.ensure(5 + 2 * len);
    if (2 * len < 0x80) this.buf[this.pos++] = 2 * len;
    else this.varint(2 * len);
    const buf = this.buf;
    let p = this.pos;
    for (let i = 0; i < len; i++) {
      const b = src[start + i]!;
      buf[p++] = HEX[b >> 4]!;
      buf[p++] = HEX[b & 15]!;
    }
    this.pos = p;
  }
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const EMPTY = Buffer.alloc(0);

// ---------------------------------------------------------------------------------------------- layouts

type StreamKind = 'bytes' | 'counts';

interface ColumnLayout {
  name: string;
  type: NativeType;
  /** Index of its first stream in the arena. */
  first: number;
  kinds: StreamKind[];
}

/** The streams of one Native column, in the order Native lays them out. */
function streamKinds(type: NativeType): StreamKind[] {
  switch (type) {
    case 'Nullable(UInt64)':
    case 'Nullable(Int64)':
      return ['bytes', 'bytes'];
    case 'Array(String)':
    case 'Array(DateTime64)':
      return ['counts', 'bytes'];
    case 'Map':
      return ['counts', 'bytes', 'bytes'];
    case 'Array(Map)':
      return ['counts', 'counts', 'bytes', 'bytes'];
    default:
      return ['bytes'];
  }
}

interface TableLayout {
  columns: ColumnLayout[];
  /** The first stream of a column, by name. */
  s(name: string): number;
}

let streamCount = 0;

function layout(schema: readonly (readonly [string, NativeType])[]): TableLayout {
  const columns: ColumnLayout[] = [];
  const byName = new Map<string, number>();
  for (const [name, type] of schema) {
    const kinds = streamKinds(type);
    columns.push({ name, type, first: streamCount, kinds });
    byName.set(name, streamCount);
    streamCount += kinds.length;
  }
  return {
    columns,
    s(name) {
      const i = byName.get(name);
      if (i === undefined) throw new Error(`wire-columns: no column ${name}`);
      return i;
    },
  };
}

const TOOL_CALLS = layout(TOOL_CALL_NATIVE);
const WARNINGS = layout(WARNING_NATIVE);
const SPANS = layout(SPAN_NATIVE);
const STREAMS = streamCount;

// Stream indexes of the columns the decoder writes (a column's further streams follow its first).
const TC = {
  tenant: TOOL_CALLS.s('tenant'),
  session_id: TOOL_CALLS.s('session_id'),
  sequence: TOOL_CALLS.s('sequence'),
  start_time: TOOL_CALLS.s('start_time'),
  end_time: TOOL_CALLS.s('end_time'),
  trace_id: TOOL_CALLS.s('trace_id'),
  span_id: TOOL_CALLS.s('span_id'),
  parent_span_id: TOOL_CALLS.s('parent_span_id'),
  trace_state: TOOL_CALLS.s('trace_state'),
  span_name: TOOL_CALLS.s('span_name'),
  span_kind: TOOL_CALLS.s('span_kind'),
  service_name: TOOL_CALLS.s('service_name'),
  scope_name: TOOL_CALLS.s('scope_name'),
  scope_version: TOOL_CALLS.s('scope_version'),
  span_status_code: TOOL_CALLS.s('span_status_code'),
  span_status_message: TOOL_CALLS.s('span_status_message'),
  result_complete: TOOL_CALLS.s('result_complete'),
  complete_reported: TOOL_CALLS.s('complete_reported'),
  result_item_count: TOOL_CALLS.s('result_item_count'),
  mutation_target_count: TOOL_CALLS.s('mutation_target_count'),
  attributes: TOOL_CALLS.s('attributes'),
  resource_attributes: TOOL_CALLS.s('resource_attributes'),
  event_times: TOOL_CALLS.s('event_times'),
  event_names: TOOL_CALLS.s('event_names'),
  event_attributes: TOOL_CALLS.s('event_attributes'),
  link_trace_ids: TOOL_CALLS.s('link_trace_ids'),
  link_span_ids: TOOL_CALLS.s('link_span_ids'),
  link_trace_states: TOOL_CALLS.s('link_trace_states'),
  link_attributes: TOOL_CALLS.s('link_attributes'),
};
const W = {
  tenant: WARNINGS.s('tenant'),
  time: WARNINGS.s('time'),
  code: WARNINGS.s('code'),
  source: WARNINGS.s('source'),
  message: WARNINGS.s('message'),
  tool_name: WARNINGS.s('tool_name'),
  agent_name: WARNINGS.s('agent_name'),
  session_id: WARNINGS.s('session_id'),
  trace_id: WARNINGS.s('trace_id'),
  span_id: WARNINGS.s('span_id'),
};
const SP = {
  Tenant: SPANS.s('Tenant'),
  Timestamp: SPANS.s('Timestamp'),
  TraceId: SPANS.s('TraceId'),
  SpanId: SPANS.s('SpanId'),
  ParentSpanId: SPANS.s('ParentSpanId'),
  TraceState: SPANS.s('TraceState'),
  SpanName: SPANS.s('SpanName'),
  SpanKind: SPANS.s('SpanKind'),
  ServiceName: SPANS.s('ServiceName'),
  ResourceAttributes: SPANS.s('ResourceAttributes'),
  ScopeName: SPANS.s('ScopeName'),
  ScopeVersion: SPANS.s('ScopeVersion'),
  SpanAttributes: SPANS.s('SpanAttributes'),
  Duration: SPANS.s('Duration'),
  StatusCode: SPANS.s('StatusCode'),
  StatusMessage: SPANS.s('StatusMessage'),
  EventsTimestamp: SPANS.s('Events.Timestamp'),
  EventsName: SPANS.s('Events.Name'),
  EventsAttributes: SPANS.s('Events.Attributes'),
  LinksTraceId: SPANS.s('Links.TraceId'),
  LinksSpanId: SPANS.s('Links.SpanId'),
  LinksTraceState: SPANS.s('Links.TraceState'),
  LinksAttributes: SPANS.s('Links.Attributes'),
};

/**
 * Typed tool_calls attributes (ingest/flatten.ts COLUMN_SETTERS): the kind of value the column takes, and its
 * stream. A value of another kind goes to `attributes` as text, as flatten does.
 */
type Typed =
  | { kind: 'operation' }
  | { kind: 'string'; stream: number }
  | { kind: 'complete' }
  | { kind: 'strings'; stream: number }
  | { kind: 'int'; stream: number }
  | { kind: 'sequence' };

const TYPED: [string, Typed][] = [
  [GenAi.OPERATION_NAME, { kind: 'operation' }],
  [GenAi.TOOL_NAME, { kind: 'string', stream: TOOL_CALLS.s('tool_name') }],
  [GenAi.TOOL_CALL_ID, { kind: 'string', stream: TOOL_CALLS.s('tool_call_id') }],
  [GenAi.CONVERSATION_ID, { kind: 'string', stream: TOOL_CALLS.s('session_id') }],
  [GenAi.AGENT_NAME, { kind: 'string', stream: TOOL_CALLS.s('agent_name') }],
  [GenAi.AGENT_ID, { kind: 'string', stream: TOOL_CALLS.s('agent_id') }],
  [Attr.EFFECT, { kind: 'string', stream: TOOL_CALLS.s('effect') }],
  [Attr.RESULT_STATUS, { kind: 'string', stream: TOOL_CALLS.s('result_status') }],
  [Attr.RESULT_COMPLETE, { kind: 'complete' }],
  [Attr.RESULT_REASONS, { kind: 'strings', stream: TOOL_CALLS.s('result_reasons') }],
  [Attr.RESULT_ITEM_COUNT, { kind: 'int', stream: TOOL_CALLS.s('result_item_count') }],
  [Attr.RESULT_CONTINUATION, { kind: 'string', stream: TOOL_CALLS.s('result_continuation') }],
  [Attr.SCOPE_RESOURCE, { kind: 'string', stream: TOOL_CALLS.s('scope_resource') }],
  [Attr.SCOPE_VISIBILITY, { kind: 'string', stream: TOOL_CALLS.s('scope_visibility') }],
  [Attr.SCOPE_SNAPSHOT, { kind: 'string', stream: TOOL_CALLS.s('scope_snapshot') }],
  [Attr.WARNINGS, { kind: 'strings', stream: TOOL_CALLS.s('warnings') }],
  [Attr.MUTATION_BASIS, { kind: 'string', stream: TOOL_CALLS.s('mutation_basis') }],
  [Attr.MUTATION_TARGET_COUNT, { kind: 'int', stream: TOOL_CALLS.s('mutation_target_count') }],
  [Attr.MUTATION_EVIDENCE_SNAPSHOTS, { kind: 'strings', stream: TOOL_CALLS.s('evidence_snapshots') }],
  [Attr.MUTATION_EVIDENCE_CALL_IDS, { kind: 'strings', stream: TOOL_CALLS.s('evidence_call_ids') }],
  [Attr.GUARD_DECISION, { kind: 'string', stream: TOOL_CALLS.s('guard_decision') }],
  [Attr.SESSION_SEQUENCE, { kind: 'sequence' }],
];
const TYPED_KEYS = TYPED.map(([k]) => Buffer.from(k, 'utf8'));
const TYPED_SPECS = TYPED.map(([, t]) => t);
const STRING_COLUMNS = TYPED_SPECS.flatMap((t) => (t.kind === 'string' ? [t.stream] : []));
const STRINGS_COLUMNS = TYPED_SPECS.flatMap((t) => (t.kind === 'strings' ? [t.stream] : []));
const TYPED_IDS: readonly number[] = TYPED_SPECS.map((_, i) => i);
/** The hash keyValue computes for a key's bytes. */
function keyHash(b: Buffer): number {
  let h = b.length;
  for (const c of b) h = (Math.imul(h, 31) + c) | 0;
  return h;
}
/** Typed keys by hash (a hit is then compared byte for byte). */
const TYPED_BY_HASH = new Map<number, number>();
for (const i of TYPED_IDS) {
  const h = keyHash(TYPED_KEYS[i]!);
  if (TYPED_BY_HASH.has(h)) throw new Error('wire-columns: typed keys share a hash');
  TYPED_BY_HASH.set(h, i);
}
const H_OPERATION = keyHash(Buffer.from(GenAi.OPERATION_NAME));
const STRING_COLUMN_SLOT = new Map(STRING_COLUMNS.map((s, i) => [s, i]));
const STRINGS_COLUMN_SLOT = new Map(STRINGS_COLUMNS.map((s, i) => [s, i]));
const K_OPERATION_KIND = 0;
const K_STRING = 1;
const K_COMPLETE = 2;
const K_STRINGS = 3;
const K_ITEM_COUNT = 4;
const K_TARGET_COUNT = 5;
const K_SEQUENCE = 6;
/** Per typed key: its kind (above) and its slot in stringSlot / stringsSlot. */
const TYPED_KIND = Int8Array.from(TYPED_SPECS, (t) =>
  t.kind === 'operation'
    ? K_OPERATION_KIND
    : t.kind === 'string'
      ? K_STRING
      : t.kind === 'complete'
        ? K_COMPLETE
        : t.kind === 'strings'
          ? K_STRINGS
          : t.kind === 'sequence'
            ? K_SEQUENCE
            : t.stream === TOOL_CALLS.s('result_item_count')
              ? K_ITEM_COUNT
              : K_TARGET_COUNT,
);
const TYPED_SLOT = Int32Array.from(TYPED_SPECS, (t) =>
  t.kind === 'string'
    ? STRING_COLUMN_SLOT.get(t.stream)!
    : t.kind === 'strings'
      ? STRINGS_COLUMN_SLOT.get(t.stream)!
      : -1,
);
/**
 * Per typed key: 1 when it is a `tooltrail.*` contract attribute (a value of another kind is flagged by flatten:
 * general path), 2 when its presence also makes a span a tool call; its allowed values when enumerated.
 */
const TYPED_CONTRACT = Uint8Array.from(TYPED, ([k]) => (isJudgedContractKey(k) ? (marksToolSpan(k) ? 2 : 1) : 0));
const TYPED_ALLOWED: (Buffer[] | undefined)[] = TYPED.map(([k]) =>
  ENUM_VALUES[k as AttrName]?.map((v) => Buffer.from(v, 'utf8')),
);
const T_TOOL_NAME = TYPED.findIndex(([k]) => k === GenAi.TOOL_NAME);
/** The one contract attribute without a column: judged all the same (a string). */
const K_SEMCONV = Buffer.from(Attr.SEMCONV_VERSION);
const H_SEMCONV = keyHash(K_SEMCONV);
const SLOT_TOOL_NAME = STRING_COLUMN_SLOT.get(TOOL_CALLS.s('tool_name'))!;
const SLOT_AGENT_NAME = STRING_COLUMN_SLOT.get(TOOL_CALLS.s('agent_name'))!;
const SLOT_SESSION_ID = STRING_COLUMN_SLOT.get(TOOL_CALLS.s('session_id'))!;

const K_TENANT = Buffer.from(Attr.TENANT);
const K_SERVICE = Buffer.from(OtelResource.SERVICE_NAME);
const K_OPERATION = Buffer.from(GenAi.OPERATION_NAME);
const V_EXECUTE_TOOL = Buffer.from(EXECUTE_TOOL);
const WARNING_EVENT = Buffer.from(WarningEvent.NAME);
const K_CODE = Buffer.from(WarningEvent.CODE);
const K_SOURCE = Buffer.from(WarningEvent.SOURCE);
const K_MESSAGE = Buffer.from(WarningEvent.MESSAGE);
const K_PROTO = Buffer.from('__proto__');

/** `s` as a Native String (varint length + UTF-8). */
function encodedString(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  if (b.length < 0x80) {
    const out = Buffer.allocUnsafe(1 + b.length);
    out[0] = b.length;
    b.copy(out, 1);
    return out;
  }
  return Buffer.concat([varintBytes(b.length), b]);
}

const SPAN_KINDS = ['Unspecified', 'Internal', 'Server', 'Client', 'Producer', 'Consumer'].map(encodedString);
const STATUS_CODES = ['Unset', 'Ok', 'Error'].map(encodedString);
const TRUE = encodedString('true');
const FALSE = encodedString('false');

// ---------------------------------------------------------------------------------------------- arena

/** Rows a message added per table, and where its bytes are in each stream. */
export interface ColumnsMark {
  toolCalls: number;
  warnings: number;
  spans: number;
  /** `[start, end)` of stream i at `2i`, `2i + 1`. */
  ranges: number[];
  /** Order of decoding in its arena: consecutive marks have adjacent ranges. */
  seq: number;
}

/** One partition's column streams: messages append to them in turn; a batch is assembled from its messages' ranges. */
export class ColumnArena {
  readonly streams: Stream[] = Array.from({ length: STREAMS }, () => new Stream());
  seq = 0;

  /** Drops the bytes before the first of `live` (the marks still buffered) and shifts their ranges. */
  compact(live: readonly ColumnsMark[]): void {
    for (let s = 0; s < STREAMS; s++) {
      const stream = this.streams[s]!;
      let from = stream.pos;
      for (const m of live) if (m.ranges[2 * s]! < from) from = m.ranges[2 * s]!;
      if (from === 0) continue;
      stream.buf.copy(stream.buf, 0, from, stream.pos);
      stream.pos -= from;
      for (const m of live) {
        m.ranges[2 * s] = m.ranges[2 * s]! - from;
        m.ranges[2 * s + 1] = m.ranges[2 * s + 1]! - from;
      }
    }
  }
}

/** The three Native blocks of a batch, with their row counts. */
export interface EncodedRows {
  toolCalls: { rows: number; body: Buffer };
  warnings: { rows: number; body: Buffer };
  spans: { rows: number; body: Buffer };
}

const COLUMN_HEADERS = new Map<ColumnLayout, Buffer>();
function columnHeader(c: ColumnLayout): Buffer {
  let h = COLUMN_HEADERS.get(c);
  if (!h) {
    h = Buffer.concat([encodedString(c.name), encodedString(nativeTypeName(c.type))]);
    COLUMN_HEADERS.set(c, h);
  }
  return h;
}

function varintBytes(v: number): Buffer {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Buffer.from(out);
}

/** One table's Native block from the marks' ranges (in order; adjacent ranges are copied at once). */
function assembleTable(arena: ColumnArena, table: TableLayout, marks: readonly ColumnsMark[], rows: number): Buffer {
  let size = 0;
  const head = Buffer.concat([varintBytes(table.columns.length), varintBytes(rows)]);
  size += head.length;
  for (const c of table.columns) {
    size += columnHeader(c).length;
    for (let k = 0; k < c.kinds.length; k++) {
      const s = c.first + k;
      let bytes = 0;
      for (const m of marks) bytes += m.ranges[2 * s + 1]! - m.ranges[2 * s]!;
      size += c.kinds[k] === 'counts' ? bytes * 2 : bytes;
    }
  }
  const out = Buffer.allocUnsafe(size);
  let pos = head.copy(out, 0);
  for (const c of table.columns) {
    pos += columnHeader(c).copy(out, pos);
    for (let k = 0; k < c.kinds.length; k++) {
      const s = c.first + k;
      const src = arena.streams[s]!.buf;
      if (c.kinds[k] === 'counts') {
        // Per-row counts -> cumulative UInt64 end offsets over the block.
        let total = 0;
        for (const m of marks) {
          for (let p = m.ranges[2 * s]!, end = m.ranges[2 * s + 1]!; p < end; p += 4) {
            total += src[p]! + src[p + 1]! * 0x100 + src[p + 2]! * 0x10000 + src[p + 3]! * 0x1000000;
            // Below 2^32 in any block this side can build (a batch is at most tens of MB).
            out[pos] = total;
            out[pos + 1] = total >>> 8;
            out[pos + 2] = total >>> 16;
            out[pos + 3] = total >>> 24;
            out[pos + 4] = 0;
            out[pos + 5] = 0;
            out[pos + 6] = 0;
            out[pos + 7] = 0;
            pos += 8;
          }
        }
        continue;
      }
      let i = 0;
      while (i < marks.length) {
        const start = marks[i]!.ranges[2 * s]!;
        let end = marks[i]!.ranges[2 * s + 1]!;
        i++;
        while (i < marks.length && marks[i]!.ranges[2 * s] === end) end = marks[i++]!.ranges[2 * s + 1]!;
        pos += src.copy(out, pos, start, end);
      }
    }
  }
  if (pos !== size) throw new Error(`wire-columns: assembled ${pos} bytes, expected ${size}`);
  return out;
}

/** The Native blocks of the messages with these marks (in offset order). */
export function assembleBlocks(arena: ColumnArena, marks: readonly ColumnsMark[]): EncodedRows {
  let toolCalls = 0;
  let warnings = 0;
  let spans = 0;
  for (const m of marks) {
    toolCalls += m.toolCalls;
    warnings += m.warnings;
    spans += m.spans;
  }
  // Marks decoded one after the other cover one range per stream: copy each stream's bytes at once.
  let parts = marks;
  const first = marks[0];
  const last = marks[marks.length - 1];
  if (first && last && last.seq - first.seq === marks.length - 1) {
    const ranges: number[] = new Array(2 * STREAMS).fill(0);
    for (let s = 0; s < STREAMS; s++) {
      ranges[2 * s] = first.ranges[2 * s]!;
      ranges[2 * s + 1] = last.ranges[2 * s + 1]!;
    }
    parts = [{ toolCalls, warnings, spans, ranges, seq: first.seq }];
  }
  const block = (table: TableLayout, rows: number) =>
    rows === 0 ? Buffer.alloc(0) : assembleTable(arena, table, parts, rows);
  return {
    toolCalls: { rows: toolCalls, body: block(TOOL_CALLS, toolCalls) },
    warnings: { rows: warnings, body: block(WARNINGS, warnings) },
    spans: { rows: spans, body: block(SPANS, spans) },
  };
}

// ---------------------------------------------------------------------------------------------- reading

/** Thrown to give up on a message (caught in decodeToColumns): the general path decides instead. */
const BAIL = new Error('wire-columns: general path');

let B: Buffer = Buffer.alloc(0);
let P = 0;

/** A varint below 2^28 (tags, lengths, counts); longer ones are left to the general path. */
function uvarint(): number {
  let b = B[P++]!;
  if (b < 0x80) return b;
  let v = b & 0x7f;
  b = B[P++]!;
  v |= (b & 0x7f) << 7;
  if (b < 0x80) return v;
  b = B[P++]!;
  v |= (b & 0x7f) << 14;
  if (b < 0x80) return v;
  b = B[P++]!;
  v |= (b & 0x7f) << 21;
  if (b < 0x80) return v;
  throw BAIL;
}

let LO = 0;
let HI = 0;
/** A full 64-bit varint into LO/HI (unsigned 32-bit halves). */
function varint64(end: number): void {
  let lo = 0;
  let hi = 0;
  let i = 0;
  for (;;) {
    if (P >= end) throw BAIL;
    const b = B[P++]!;
    if (i < 4) lo |= (b & 0x7f) << (7 * i);
    else if (i === 4) {
      lo |= (b & 0x0f) << 28;
      hi |= (b & 0x7f) >> 4;
    } else hi |= (b & 0x7f) << (7 * i - 32);
    i++;
    if (b < 0x80) break;
    if (i === 10) throw BAIL;
  }
  LO = lo >>> 0;
  HI = hi >>> 0;
}

/** End of a length-delimited field starting at P, inside `end`. */
function sub(end: number): number {
  const len = uvarint();
  const e = P + len;
  if (!(e <= end)) throw BAIL;
  return e;
}

function skip(wire: number, end: number): void {
  switch (wire) {
    case 0:
      varint64(end);
      return;
    case 1:
      P += 8;
      break;
    case 2:
      P = sub(end);
      return;
    case 5:
      P += 4;
      break;
    default:
      throw BAIL;
  }
  if (P > end) throw BAIL;
}

/** Checks the string at [start, start+len) is UTF-8 (as the general path's reader would read it unchanged). */
function checkText(start: number, len: number): void {
  for (let i = start, e = start + len; i < e; i++) {
    if (B[i]! > 0x7f) {
      if (!isUtf8(B.subarray(start, e))) throw BAIL;
      return;
    }
  }
}

function same(start: number, len: number, bytes: Buffer): boolean {
  if (len !== bytes.length) return false;
  for (let i = 0; i < len; i++) if (B[start + i] !== bytes[i]) return false;
  return true;
}

/** Whether [start, start+len) is one of `allowed`. */
function allowedValue(allowed: readonly Buffer[], start: number, len: number): boolean {
  for (let k = 0; k < allowed.length; k++) if (same(start, len, allowed[k]!)) return true;
  return false;
}

function sameRange(a: number, b: number, len: number): boolean {
  for (let i = 0; i < len; i++) if (B[a + i] !== B[b + i]) return false;
  return true;
}

// Key-values of the current message: parallel arrays, grown as needed. A map is a range [from, to) of slots.
const V_NONE = 0;
const V_STRING = 1;
const V_BOOL = 2;
const V_INT = 3;
const V_DOUBLE = 4;
const V_STRINGS = 5;
let cap = 256;
let kvKey = new Int32Array(cap);
let kvKeyLen = new Int32Array(cap);
let kvKind = new Uint8Array(cap);
let kvHash = new Int32Array(cap);
let kvA = new Int32Array(cap);
let kvB = new Int32Array(cap);
let kvCount = 0;

function grow(): void {
  cap *= 2;
  const g = <T extends Int32Array | Uint8Array | Float64Array>(a: T, make: (n: number) => T): T => {
    const n = make(cap);
    n.set(a);
    return n;
  };
  kvKey = g(kvKey, (n) => new Int32Array(n));
  kvKeyLen = g(kvKeyLen, (n) => new Int32Array(n));
  kvKind = g(kvKind, (n) => new Uint8Array(n));
  kvHash = g(kvHash, (n) => new Int32Array(n));
  kvA = g(kvA, (n) => new Int32Array(n));
  kvB = g(kvB, (n) => new Int32Array(n));
}

/** An AnyValue into slot i: exactly one field, of a kind handled here. */
function anyValue(i: number, end: number): void {
  let fields = 0;
  while (P < end) {
    const tag = uvarint();
    fields++;
    switch (tag) {
      case (1 << 3) | 2: {
        const len = uvarint();
        if (!(P + len <= end)) throw BAIL;
        checkText(P, len);
        kvKind[i] = V_STRING;
        kvA[i] = P;
        kvB[i] = len;
        P += len;
        break;
      }
      case (2 << 3) | 0: {
        const b = B[P++]!;
        if (b >= 0x80) throw BAIL;
        kvKind[i] = V_BOOL;
        kvA[i] = b === 0 ? 0 : 1;
        break;
      }
      case (3 << 3) | 0:
        varint64(end);
        kvKind[i] = V_INT;
        kvA[i] = LO;
        kvB[i] = HI;
        break;
      case (4 << 3) | 1:
        if (P + 8 > end) throw BAIL;
        kvKind[i] = V_DOUBLE;
        kvA[i] = P;
        P += 8;
        break;
      case (5 << 3) | 2: {
        // An ArrayValue of string AnyValues only.
        const e = sub(end);
        const start = P;
        while (P < e) {
          if (uvarint() !== ((1 << 3) | 2)) throw BAIL;
          const ve = sub(e);
          if (uvarint() !== ((1 << 3) | 2)) throw BAIL;
          const len = uvarint();
          if (P + len !== ve) throw BAIL;
          checkText(P, len);
          P = ve;
        }
        if (P !== e) throw BAIL;
        kvKind[i] = V_STRINGS;
        kvA[i] = start;
        kvB[i] = e;
        break;
      }
      default:
        throw BAIL;
    }
    if (fields > 1 || P > end) throw BAIL;
  }
  if (P !== end) throw BAIL;
}

/** One KeyValue (message content up to `end`) into the next slot. */
function keyValue(end: number): void {
  if (kvCount === cap) grow();
  const i = kvCount++;
  kvKey[i] = -1;
  kvKind[i] = V_NONE;
  let haveValue = false;
  while (P < end) {
    const tag = uvarint();
    if (tag === ((1 << 3) | 2)) {
      if (kvKey[i] !== -1) throw BAIL;
      const len = uvarint();
      if (!(P + len <= end) || len > 0xffff) throw BAIL;
      // One pass: the key's hash (for the typed-column lookup and the repeated-key check) and its ASCII check.
      let h = len;
      let high = 0;
      for (let j = P, e = P + len; j < e; j++) {
        const c = B[j]!;
        high |= c;
        h = (Math.imul(h, 31) + c) | 0;
      }
      if (high > 0x7f) checkText(P, len);
      kvHash[i] = h;
      kvKey[i] = P;
      kvKeyLen[i] = len;
      P += len;
    } else if (tag === ((2 << 3) | 2)) {
      if (haveValue) throw BAIL;
      haveValue = true;
      const e = sub(end);
      anyValue(i, e);
    } else throw BAIL;
  }
  if (P !== end || kvKey[i] === -1) throw BAIL;
  // Plain-object map semantics differ for these (index keys sort first; __proto__ is no key): general path.
  const ks = kvKey[i]!;
  const kl = kvKeyLen[i]!;
  if (kl > 0 && kl <= 10) {
    let digits = true;
    for (let j = 0; j < kl; j++) {
      const c = B[ks + j]!;
      if (c < 0x30 || c > 0x39) {
        digits = false;
        break;
      }
    }
    if (digits) throw BAIL;
  }
  if (same(ks, kl, K_PROTO)) throw BAIL;
}

/** Gives up when two slots of [from, to) share a key (a plain object would keep one). */
function checkUniqueKeys(from: number, to: number): void {
  for (let a = from + 1; a < to; a++) {
    const len = kvKeyLen[a]!;
    const ka = kvKey[a]!;
    const h = kvHash[a];
    for (let b = from; b < a; b++)
      if (kvHash[b] === h && kvKeyLen[b] === len && sameRange(ka, kvKey[b]!, len)) throw BAIL;
  }
}

function findKey(from: number, to: number, key: Buffer): number {
  for (let i = from; i < to; i++) if (same(kvKey[i]!, kvKeyLen[i]!, key)) return i;
  return -1;
}

/** The value of slot i as flatten's `valueText` writes it. */
function writeValueText(out: Stream, i: number): void {
  switch (kvKind[i]) {
    case V_STRING:
      out.strFrom(B, kvA[i]!, kvB[i]!);
      return;
    case V_BOOL:
      out.encoded(kvA[i] ? TRUE : FALSE);
      return;
    case V_INT:
      out.str(int64Text(kvA[i]! >>> 0, kvB[i]! >>> 0));
      return;
    case V_DOUBLE:
      out.str(String(B.readDoubleLE(kvA[i]!)));
      return;
    case V_STRINGS:
      out.str(JSON.stringify(stringsOf(i)));
      return;
    default:
      out.str('');
  }
}

function stringsOf(i: number): string[] {
  const out: string[] = [];
  const save = P;
  P = kvA[i]!;
  const e = kvB[i]!;
  while (P < e) {
    uvarint();
    const ve = sub(e);
    uvarint();
    const len = uvarint();
    out.push(B.toString('utf8', P, P + len));
    P = ve;
  }
  P = save;
  return out;
}

function int64Text(lo: number, hi: number): string {
  if (hi < 0x200000) return String(hi * 4294967296 + lo);
  if (hi >= 0xffe00000) return String((hi - 4294967296) * 4294967296 + lo);
  return BigInt.asIntN(64, (BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** Map column: a count, the keys, the values (slots [from, to)). */
function writeMap(counts: Stream, keys: Stream, values: Stream, from: number, to: number): void {
  counts.count(to - from);
  for (let i = from; i < to; i++) keys.strFrom(B, kvKey[i]!, kvKeyLen[i]!);
  for (let i = from; i < to; i++) writeValueText(values, i);
}

/** An Array(String) value from a V_STRINGS slot: its count, then its strings. */
function writeStrings(counts: Stream, values: Stream, i: number): void {
  const save = P;
  P = kvA[i]!;
  const e = kvB[i]!;
  let n = 0;
  while (P < e) {
    uvarint();
    const ve = sub(e);
    uvarint();
    const len = uvarint();
    values.strFrom(B, P, len);
    P = ve;
    n++;
  }
  P = save;
  counts.count(n);
}

// ---------------------------------------------------------------------------------------------- messages

interface Resource {
  tenant: Buffer;
  service: Buffer;
  kvFrom: number;
  kvTo: number;
  /** Its attributes as Native map parts, encoded once for all its rows. */
  mapKeys: Buffer;
  mapValues: Buffer;
}

const scratchKeys = new Stream();
const scratchValues = new Stream();

/** A map's keys and values encoded once (a resource's: the same for each of its rows). */
function encodeMap(from: number, to: number): { mapKeys: Buffer; mapValues: Buffer } {
  scratchKeys.pos = 0;
  scratchValues.pos = 0;
  for (let i = from; i < to; i++) scratchKeys.strFrom(B, kvKey[i]!, kvKeyLen[i]!);
  for (let i = from; i < to; i++) writeValueText(scratchValues, i);
  return {
    mapKeys: Buffer.from(scratchKeys.buf.subarray(0, scratchKeys.pos)),
    mapValues: Buffer.from(scratchValues.buf.subarray(0, scratchValues.pos)),
  };
}

/** The resource attributes column of one row. */
function writeResourceMap(counts: Stream, keys: Stream, values: Stream, res: Resource): void {
  counts.count(res.kvTo - res.kvFrom);
  keys.encoded(res.mapKeys);
  values.encoded(res.mapValues);
}

/** Span fields (positions in B), re-used for every span. */
const span = {
  traceId: -1,
  traceIdLen: 0,
  spanId: -1,
  spanIdLen: 0,
  traceState: -1,
  traceStateLen: 0,
  parent: -1,
  parentLen: 0,
  name: -1,
  nameLen: 0,
  kind: 0,
  start: -1,
  end: -1,
  statusMessage: -1,
  statusMessageLen: 0,
  statusCode: 0,
  attrFrom: 0,
  attrTo: 0,
};
let events: Int32Array = new Int32Array(64);
let eventCount = 0;
let links: Int32Array = new Int32Array(64);
let linkCount = 0;

function pushPair(list: Int32Array, n: number, a: number, b: number): Int32Array {
  let l = list;
  if (2 * n + 2 > l.length) {
    l = new Int32Array(l.length * 2);
    l.set(list);
  }
  l[2 * n] = a;
  l[2 * n + 1] = b;
  return l;
}

function status(end: number): void {
  while (P < end) {
    const tag = uvarint();
    if (tag === ((2 << 3) | 2)) {
      const len = uvarint();
      if (!(P + len <= end)) throw BAIL;
      checkText(P, len);
      span.statusMessage = P;
      span.statusMessageLen = len;
      P += len;
    } else if (tag === ((3 << 3) | 0)) {
      const c = B[P++]!;
      if (c >= 0x80) throw BAIL;
      span.statusCode = c;
    } else skip(tag & 7, end);
  }
  if (P !== end) throw BAIL;
}

function stringField(end: number): number {
  const len = uvarint();
  if (!(P + len <= end)) throw BAIL;
  checkText(P, len);
  const at = P;
  P += len;
  return at;
}

function bytesField(end: number): number {
  const len = uvarint();
  if (!(P + len <= end)) throw BAIL;
  const at = P;
  P += len;
  return at;
}

/** Reads one span's fields (last one wins for singular fields, as the generated decoder does). */
function readSpan(end: number): void {
  span.traceId = -1;
  span.traceIdLen = 0;
  span.spanId = -1;
  span.spanIdLen = 0;
  span.traceState = -1;
  span.traceStateLen = 0;
  span.parent = -1;
  span.parentLen = 0;
  span.name = -1;
  span.nameLen = 0;
  span.kind = 0;
  span.start = -1;
  span.end = -1;
  span.statusMessage = -1;
  span.statusMessageLen = 0;
  span.statusCode = 0;
  span.attrFrom = kvCount;
  eventCount = 0;
  linkCount = 0;
  while (P < end) {
    const tag = uvarint();
    switch (tag) {
      case (1 << 3) | 2:
        span.traceId = bytesField(end);
        span.traceIdLen = P - span.traceId;
        break;
      case (2 << 3) | 2:
        span.spanId = bytesField(end);
        span.spanIdLen = P - span.spanId;
        break;
      case (3 << 3) | 2:
        span.traceState = stringField(end);
        span.traceStateLen = P - span.traceState;
        break;
      case (4 << 3) | 2:
        span.parent = bytesField(end);
        span.parentLen = P - span.parent;
        break;
      case (5 << 3) | 2:
        span.name = stringField(end);
        span.nameLen = P - span.name;
        break;
      case (6 << 3) | 0: {
        const k = B[P++]!;
        if (k >= 0x80) throw BAIL;
        span.kind = k;
        break;
      }
      case (7 << 3) | 1:
        span.start = P;
        P += 8;
        break;
      case (8 << 3) | 1:
        span.end = P;
        P += 8;
        break;
      case (9 << 3) | 2: {
        // One run of slots: events and links are read after the span, into the slots after these.
        const e = sub(end);
        keyValue(e);
        break;
      }
      case (11 << 3) | 2: {
        const e = sub(end);
        events = pushPair(events, eventCount++, P, e);
        P = e;
        break;
      }
      case (13 << 3) | 2: {
        const e = sub(end);
        links = pushPair(links, linkCount++, P, e);
        P = e;
        break;
      }
      case (15 << 3) | 2: {
        const e = sub(end);
        span.statusMessage = -1;
        span.statusMessageLen = 0;
        span.statusCode = 0;
        status(e);
        break;
      }
      case (16 << 3) | 5:
        P += 4;
        break;
      case (10 << 3) | 0:
      case (12 << 3) | 0:
      case (14 << 3) | 0:
        uvarint();
        break;
      default:
        if (tag >>> 3 <= 16) throw BAIL;
        skip(tag & 7, end);
    }
    if (P > end) throw BAIL;
  }
  if (P !== end) throw BAIL;
  span.attrTo = kvCount;
  checkUniqueKeys(span.attrFrom, span.attrTo);
}

/** A non-zero id of exactly `length` bytes (else the span is rejected: general path). */
function checkId(at: number, len: number, length: number): void {
  if (at < 0 || len !== length) throw BAIL;
  for (let i = 0; i < len; i++) if (B[at + i] !== 0) return;
  throw BAIL;
}

interface Ev {
  time: number;
  name: number;
  nameLen: number;
  kvFrom: number;
  kvTo: number;
}
const evs: Ev[] = [];

/** Reads the span's events into `evs` (their attributes into slots). */
function readEvents(): void {
  while (evs.length < eventCount) evs.push({ time: -1, name: -1, nameLen: 0, kvFrom: 0, kvTo: 0 });
  for (let k = 0; k < eventCount; k++) {
    const ev = evs[k]!;
    ev.time = -1;
    ev.name = -1;
    ev.nameLen = 0;
    ev.kvFrom = kvCount;
    P = events[2 * k]!;
    const end = events[2 * k + 1]!;
    while (P < end) {
      const tag = uvarint();
      switch (tag) {
        case (1 << 3) | 1:
          ev.time = P;
          P += 8;
          break;
        case (2 << 3) | 2:
          ev.name = stringField(end);
          ev.nameLen = P - ev.name;
          break;
        case (3 << 3) | 2: {
          const e = sub(end);
          keyValue(e);
          break;
        }
        case (4 << 3) | 0:
          uvarint();
          break;
        default:
          if (tag >>> 3 <= 4) throw BAIL;
          skip(tag & 7, end);
      }
      if (P > end) throw BAIL;
    }
    if (P !== end) throw BAIL;
    ev.kvTo = kvCount;
    checkUniqueKeys(ev.kvFrom, ev.kvTo);
  }
}

interface Lk {
  traceId: number;
  traceIdLen: number;
  spanId: number;
  spanIdLen: number;
  state: number;
  stateLen: number;
  kvFrom: number;
  kvTo: number;
}
const lks: Lk[] = [];

function readLinks(): void {
  while (lks.length < linkCount)
    lks.push({ traceId: -1, traceIdLen: 0, spanId: -1, spanIdLen: 0, state: -1, stateLen: 0, kvFrom: 0, kvTo: 0 });
  for (let k = 0; k < linkCount; k++) {
    const l = lks[k]!;
    l.traceId = -1;
    l.traceIdLen = 0;
    l.spanId = -1;
    l.spanIdLen = 0;
    l.state = -1;
    l.stateLen = 0;
    l.kvFrom = kvCount;
    P = links[2 * k]!;
    const end = links[2 * k + 1]!;
    while (P < end) {
      const tag = uvarint();
      switch (tag) {
        case (1 << 3) | 2:
          l.traceId = bytesField(end);
          l.traceIdLen = P - l.traceId;
          break;
        case (2 << 3) | 2:
          l.spanId = bytesField(end);
          l.spanIdLen = P - l.spanId;
          break;
        case (3 << 3) | 2:
          l.state = stringField(end);
          l.stateLen = P - l.state;
          break;
        case (4 << 3) | 2: {
          const e = sub(end);
          keyValue(e);
          break;
        }
        case (5 << 3) | 0:
          uvarint();
          break;
        case (6 << 3) | 5:
          P += 4;
          break;
        default:
          if (tag >>> 3 <= 6) throw BAIL;
          skip(tag & 7, end);
      }
      if (P > end) throw BAIL;
    }
    if (P !== end) throw BAIL;
    l.kvTo = kvCount;
    checkUniqueKeys(l.kvFrom, l.kvTo);
  }
}

function writeString(out: Stream, at: number, len: number): void {
  if (at < 0) out.u8(0);
  else out.strFrom(B, at, len);
}

function writeHex(out: Stream, at: number, len: number): void {
  if (at < 0) out.u8(0);
  else out.hex(B, at, len);
}

function writeEnum(out: Stream, names: readonly Buffer[], v: number): void {
  const known = names[v];
  if (known !== undefined) out.encoded(known);
  else out.str(String(v));
}

/** Events and links columns (tool_calls and spans lay them out alike). */
function writeEventsAndLinks(
  st: Stream[],
  times: number,
  names: number,
  eattrs: number,
  ltrace: number,
  lspan: number,
  lstate: number,
  lattrs: number,
): void {
  st[times]!.count(eventCount);
  st[names]!.count(eventCount);
  st[eattrs]!.count(eventCount);
  for (let k = 0; k < eventCount; k++) {
    const ev = evs[k]!;
    if (ev.time >= 0 && (B.readUInt32LE(ev.time) !== 0 || B.readUInt32LE(ev.time + 4) !== 0))
      st[times + 1]!.raw8(B, ev.time);
    else st[times + 1]!.raw8(B, span.start);
    writeString(st[names + 1]!, ev.name, ev.nameLen);
    writeMap(st[eattrs + 1]!, st[eattrs + 2]!, st[eattrs + 3]!, ev.kvFrom, ev.kvTo);
  }
  st[ltrace]!.count(linkCount);
  st[lspan]!.count(linkCount);
  st[lstate]!.count(linkCount);
  st[lattrs]!.count(linkCount);
  for (let k = 0; k < linkCount; k++) {
    const l = lks[k]!;
    writeHex(st[ltrace + 1]!, l.traceId, l.traceIdLen);
    writeHex(st[lspan + 1]!, l.spanId, l.spanIdLen);
    writeString(st[lstate + 1]!, l.state, l.stateLen);
    writeMap(st[lattrs + 1]!, st[lattrs + 2]!, st[lattrs + 3]!, l.kvFrom, l.kvTo);
  }
}

/** Nullable(U)Int64 from slot i (-1: null): the null map, then the value (0 for null). */
function writeNullable(st: Stream[], stream: number, i: number): void {
  st[stream]!.u8(i < 0 ? 1 : 0);
  st[stream + 1]!.u64Halves(i < 0 ? 0 : kvA[i]!, i < 0 ? 0 : kvB[i]!);
}

/** The string value of slot i ('' for -1). */
function writeSlotString(out: Stream, i: number): void {
  if (i < 0) out.u8(0);
  else out.strFrom(B, kvA[i]!, kvB[i]!);
}

/** A warning column: the event attribute's text, '' when absent. */
function writeEventAttribute(out: Stream, ev: Ev, key: Buffer): void {
  const i = findKey(ev.kvFrom, ev.kvTo, key);
  if (i < 0) out.u8(0);
  else writeValueText(out, i);
}

// Per tool span: the slot each typed column takes its value from (-1: default), and the slots left as attributes.
const stringSlot = new Int32Array(STRING_COLUMNS.length);
const stringsSlot = new Int32Array(STRINGS_COLUMNS.length);
let extra = new Int32Array(64);

let out = { toolCalls: 0, warnings: 0, spans: 0 };

function writeToolCall(
  st: Stream[],
  res: Resource,
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
  for (let i = span.attrFrom; i < span.attrTo; i++) {
    let typed = TYPED_BY_HASH.get(kvHash[i]!) ?? -1;
    if (typed >= 0 && !same(kvKey[i]!, kvKeyLen[i]!, TYPED_KEYS[typed]!)) typed = -1;
    if (typed >= 0) {
      const kind = kvKind[i];
      switch (TYPED_KIND[typed]) {
        case K_OPERATION_KIND:
          if (kind === V_STRING) continue;
          break;
        case K_STRING:
          if (kind === V_STRING) {
            const allowed = TYPED_ALLOWED[typed];
            if (allowed !== undefined && !allowedValue(allowed, kvA[i]!, kvB[i]!)) throw BAIL;
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
          if (kind === V_INT && kvB[i]! >= 0) {
            sequence = i;
            continue;
          }
          // A negative sequence stays in `attributes`, unflagged, as flatten keeps it.
          if (kind === V_INT) typed = -1;
          break;
      }
      // A contract attribute of another kind is stored flagged (or coerced): flatten's.
      if (typed >= 0 && TYPED_CONTRACT[typed] !== 0) throw BAIL;
    } else if (kvHash[i] === H_SEMCONV && same(kvKey[i]!, kvKeyLen[i]!, K_SEMCONV) && kvKind[i] !== V_STRING) {
      throw BAIL;
    }
    if (extras === extra.length) {
      const e = new Int32Array(extra.length * 2);
      e.set(extra);
      extra = e;
    }
    extra[extras++] = i;
  }

  st[TC.tenant]!.encoded(res.tenant);
  st[TC.start_time]!.raw8(B, span.start);
  st[TC.end_time]!.raw8(B, span.end);
  st[TC.trace_id]!.hex(B, span.traceId, 16);
  st[TC.span_id]!.hex(B, span.spanId, 8);
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
  st[TC.result_complete]!.u8(complete >= 0 ? kvA[complete]! : 0);
  st[TC.complete_reported]!.u8(complete >= 0 ? 1 : 0);
  writeNullable(st, TC.sequence, sequence);
  writeNullable(st, TC.result_item_count, itemCount);
  writeNullable(st, TC.mutation_target_count, targetCount);
  // attributes: the slots no typed column took, in their order.
  st[TC.attributes]!.count(extras);
  for (let k = 0; k < extras; k++) st[TC.attributes + 1]!.strFrom(B, kvKey[extra[k]!]!, kvKeyLen[extra[k]!]!);
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
  out.toolCalls++;

  for (let k = 0; k < eventCount; k++) {
    const ev = evs[k]!;
    if (ev.name < 0 || !same(ev.name, ev.nameLen, WARNING_EVENT)) continue;
    st[W.tenant]!.encoded(res.tenant);
    if (ev.time >= 0 && (B.readUInt32LE(ev.time) !== 0 || B.readUInt32LE(ev.time + 4) !== 0))
      st[W.time]!.raw8(B, ev.time);
    else st[W.time]!.raw8(B, span.start);
    writeEventAttribute(st[W.code]!, ev, K_CODE);
    writeEventAttribute(st[W.source]!, ev, K_SOURCE);
    writeEventAttribute(st[W.message]!, ev, K_MESSAGE);
    writeSlotString(st[W.tool_name]!, stringSlot[SLOT_TOOL_NAME]!);
    writeSlotString(st[W.agent_name]!, stringSlot[SLOT_AGENT_NAME]!);
    writeSlotString(st[W.session_id]!, stringSlot[SLOT_SESSION_ID]!);
    st[W.trace_id]!.hex(B, span.traceId, 16);
    st[W.span_id]!.hex(B, span.spanId, 8);
    out.warnings++;
  }
}

function writeSpan(
  st: Stream[],
  res: Resource,
  scopeName: number,
  scopeNameLen: number,
  scopeVersion: number,
  scopeVersionLen: number,
): void {
  st[SP.Tenant]!.encoded(res.tenant);
  st[SP.Timestamp]!.raw8(B, span.start);
  st[SP.TraceId]!.hex(B, span.traceId, 16);
  st[SP.SpanId]!.hex(B, span.spanId, 8);
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
  const slo = B.readUInt32LE(span.start);
  const shi = B.readUInt32LE(span.start + 4);
  const elo = B.readUInt32LE(span.end);
  const ehi = B.readUInt32LE(span.end + 4);
  if (ehi > shi || (ehi === shi && elo > slo)) {
    let lo = elo - slo;
    let hi = ehi - shi;
    if (lo < 0) {
      lo += 4294967296;
      hi -= 1;
    }
    if (hi >= 0x200000) throw BAIL;
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
  out.spans++;
}

/**
 * Whether the span is an execute_tool span. One that is a tool call only by what it carries (a contract attribute,
 * or a tool name without an operation name: contract/attribute-values.ts) is stored flagged: general path.
 */
function isToolSpan(): boolean {
  let operation = false;
  let toolName = false;
  let contract = false;
  for (let i = span.attrFrom; i < span.attrTo; i++) {
    const h = kvHash[i]!;
    if (h === H_OPERATION && same(kvKey[i]!, kvKeyLen[i]!, K_OPERATION)) {
      if (kvKind[i] === V_STRING && same(kvA[i]!, kvB[i]!, V_EXECUTE_TOOL)) return true;
      operation = true;
      continue;
    }
    const typed = TYPED_BY_HASH.get(h);
    if (typed === undefined || !same(kvKey[i]!, kvKeyLen[i]!, TYPED_KEYS[typed]!)) continue;
    if (typed === T_TOOL_NAME) toolName = true;
    else if (TYPED_CONTRACT[typed] === 2) contract = true;
  }
  if (contract || (toolName && !operation)) throw BAIL;
  return false;
}

function text(at: number, len: number): string {
  return B.toString('utf8', at, at + len);
}

function readResource(end: number, options: FlattenOptions): Resource {
  const kvFrom = kvCount;
  while (P < end) {
    const tag = uvarint();
    if (tag === ((1 << 3) | 2)) {
      const e = sub(end);
      keyValue(e);
    } else if (tag === ((2 << 3) | 0)) uvarint();
    else if (tag >>> 3 <= 3) throw BAIL;
    else skip(tag & 7, end);
  }
  if (P !== end) throw BAIL;
  const kvTo = kvCount;
  checkUniqueKeys(kvFrom, kvTo);
  const t = findKey(kvFrom, kvTo, K_TENANT);
  const found = t >= 0 && kvKind[t] === V_STRING ? text(kvA[t]!, kvB[t]!) : undefined;
  const tenant = options.tenant || found || options.defaultTenant;
  // No tenant, or a claimed one outside the tenant rule: rejected by the general path.
  if (!tenant || (tenant !== options.tenant && !isValidTenant(tenant))) throw BAIL;
  const s = findKey(kvFrom, kvTo, K_SERVICE);
  const service = s >= 0 && kvKind[s] === V_STRING ? text(kvA[s]!, kvB[s]!) : '';
  return { tenant: encodedString(tenant), service: encodedString(service), kvFrom, kvTo, ...encodeMap(kvFrom, kvTo) };
}

function scopeSpans(st: Stream[], res: Resource, start: number, end: number): void {
  // The scope (last one wins) may follow the spans on the wire: find it first.
  let scopeName = -1;
  let scopeNameLen = 0;
  let scopeVersion = -1;
  let scopeVersionLen = 0;
  P = start;
  while (P < end) {
    const tag = uvarint();
    if (tag === ((1 << 3) | 2)) {
      const e = sub(end);
      scopeName = -1;
      scopeNameLen = 0;
      scopeVersion = -1;
      scopeVersionLen = 0;
      while (P < e) {
        const t = uvarint();
        if (t === ((1 << 3) | 2)) {
          scopeName = stringField(e);
          scopeNameLen = P - scopeName;
        } else if (t === ((2 << 3) | 2)) {
          scopeVersion = stringField(e);
          scopeVersionLen = P - scopeVersion;
        } else if (t === ((4 << 3) | 0)) uvarint();
        else if (t >>> 3 <= 4) throw BAIL;
        else skip(t & 7, e);
        if (P > e) throw BAIL;
      }
      if (P !== e) throw BAIL;
    } else if (tag === ((2 << 3) | 2) || tag === ((3 << 3) | 2)) {
      P = sub(end);
    } else if (tag >>> 3 <= 3) throw BAIL;
    else skip(tag & 7, end);
  }
  if (P !== end) throw BAIL;
  P = start;
  while (P < end) {
    const tag = uvarint();
    if (tag === ((2 << 3) | 2)) {
      const e = sub(end);
      const kvMark = kvCount;
      readSpan(e);
      checkId(span.traceId, span.traceIdLen, 16);
      checkId(span.spanId, span.spanIdLen, 8);
      if (span.start < 0 || span.end < 0) throw BAIL;
      readEvents();
      readLinks();
      if (isToolSpan()) writeToolCall(st, res, scopeName, scopeNameLen, scopeVersion, scopeVersionLen);
      else writeSpan(st, res, scopeName, scopeNameLen, scopeVersion, scopeVersionLen);
      kvCount = kvMark;
      P = e;
    } else if (tag === ((1 << 3) | 2) || tag === ((3 << 3) | 2)) {
      const e = sub(end);
      if (tag === ((3 << 3) | 2)) checkText(P, e - P);
      P = e;
    } else skip(tag & 7, end);
  }
}

function resourceSpans(st: Stream[], end: number, options: FlattenOptions): void {
  const start = P;
  let resStart = -1;
  let resEnd = -1;
  while (P < end) {
    const tag = uvarint();
    if (tag === ((1 << 3) | 2)) {
      // Given twice, the general decoder still reads (and may refuse) the first one.
      if (resStart >= 0) throw BAIL;
      resEnd = sub(end);
      resStart = P;
      P = resEnd;
    } else if (tag === ((2 << 3) | 2) || tag === ((3 << 3) | 2)) {
      const e = sub(end);
      if (tag === ((3 << 3) | 2)) checkText(P, e - P);
      P = e;
    } else if (tag >>> 3 <= 3) throw BAIL;
    else skip(tag & 7, end);
  }
  if (P !== end) throw BAIL;
  let res: Resource;
  if (resStart >= 0) {
    P = resStart;
    res = readResource(resEnd, options);
  } else {
    const tenant = options.tenant || options.defaultTenant;
    if (!tenant) {
      // No resource: flatten rejects its spans only if there are any; find out the general way.
      throw BAIL;
    }
    res = {
      tenant: encodedString(tenant),
      service: encodedString(''),
      kvFrom: kvCount,
      kvTo: kvCount,
      mapKeys: EMPTY,
      mapValues: EMPTY,
    };
  }
  P = start;
  while (P < end) {
    const tag = uvarint();
    const e = tag === ((1 << 3) | 2) || tag === ((2 << 3) | 2) || tag === ((3 << 3) | 2) ? sub(end) : -1;
    if (tag === ((2 << 3) | 2)) {
      scopeSpans(st, res, P, e);
      P = e;
    } else if (e >= 0) P = e;
    else skip(tag & 7, end);
  }
}

/** Rows per table added by the last successful decodeToColumns. */
export interface ColumnCounts {
  toolCalls: number;
  warnings: number;
  spans: number;
}

/**
 * Appends the rows of one OTLP `ExportTraceServiceRequest` to the arena. Returns the mark (rows per table, byte
 * ranges per stream), or undefined when the message needs the general path (the arena is then as before).
 */
export function decodeToColumns(
  arena: ColumnArena,
  bytes: Uint8Array,
  options: FlattenOptions = {},
): ColumnsMark | undefined {
  const st = arena.streams;
  // A plain array of small integers: young-generation memory (a typed array this size would be off-heap).
  const ranges: number[] = new Array(2 * STREAMS).fill(0);
  for (let s = 0; s < STREAMS; s++) ranges[2 * s] = st[s]!.pos;
  B = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  P = 0;
  kvCount = 0;
  out = { toolCalls: 0, warnings: 0, spans: 0 };
  const end = B.length;
  try {
    while (P < end) {
      const tag = uvarint();
      if (tag === ((1 << 3) | 2)) {
        const e = sub(end);
        resourceSpans(st, e, options);
        P = e;
      } else if (tag >>> 3 <= 1) throw BAIL;
      else skip(tag & 7, end);
    }
    if (P !== end) throw BAIL;
  } catch (err) {
    for (let s = 0; s < STREAMS; s++) st[s]!.pos = ranges[2 * s]!;
    if (err === BAIL || err instanceof RangeError || err instanceof TypeError) return undefined;
    throw err;
  } finally {
    B = EMPTY;
  }
  for (let s = 0; s < STREAMS; s++) ranges[2 * s + 1] = st[s]!.pos;
  return { toolCalls: out.toolCalls, warnings: out.warnings, spans: out.spans, ranges, seq: arena.seq++ };
}
