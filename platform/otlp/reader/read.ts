/**
 * The one hand-written OTLP trace protobuf reader: it walks an `ExportTraceServiceRequest` in place, records each
 * part's fields as positions (tape.ts) and calls its consumer once per resource, scope and span. The collector's
 * validation and the ingest's column path both read through it, so both take and leave the same bytes.
 *
 * It reads one strict subset of the wire format, on which the general decoding (protobuf.ts) reads the same values
 * (both are held to OpenTelemetry's .proto files in tests): known fields with their expected wire types, singular fields at most once, every nested
 * message ending exactly at its length, tags and lengths in at most 4 varint bytes, bools and enums in one byte,
 * every string valid UTF-8, attribute values nested at most MAX_ANY_VALUE_DEPTH deep with at most one value each,
 * resources without entity refs. Bytes outside it are not judged here: the reader returns false and the consumer
 * takes its general path (protobuf.ts), which accepts or refuses them as it always did.
 */
import { isUtf8 } from 'node:buffer';
import { MAX_ANY_VALUE_DEPTH as MAX_ANY_VALUE_DEPTH$ } from '../json.ts';
import {
  T_ANY_VALUE_ARRAY_VALUE as T_ANY_VALUE_ARRAY_VALUE$,
  T_ANY_VALUE_BOOL_VALUE as T_ANY_VALUE_BOOL_VALUE$,
  T_ANY_VALUE_BYTES_VALUE as T_ANY_VALUE_BYTES_VALUE$,
  T_ANY_VALUE_DOUBLE_VALUE as T_ANY_VALUE_DOUBLE_VALUE$,
  T_ANY_VALUE_INT_VALUE as T_ANY_VALUE_INT_VALUE$,
  T_ANY_VALUE_KVLIST_VALUE as T_ANY_VALUE_KVLIST_VALUE$,
  T_ANY_VALUE_STRING_VALUE as T_ANY_VALUE_STRING_VALUE$,
  T_ARRAY_VALUE_VALUES as T_ARRAY_VALUE_VALUES$,
  T_EVENT_ATTRIBUTES as T_EVENT_ATTRIBUTES$,
  T_EVENT_DROPPED_ATTRIBUTES_COUNT as T_EVENT_DROPPED_ATTRIBUTES_COUNT$,
  T_EVENT_NAME as T_EVENT_NAME$,
  T_EVENT_TIME_UNIX_NANO as T_EVENT_TIME_UNIX_NANO$,
  T_KEY_VALUE_KEY as T_KEY_VALUE_KEY$,
  T_KEY_VALUE_LIST_VALUES as T_KEY_VALUE_LIST_VALUES$,
  T_KEY_VALUE_VALUE as T_KEY_VALUE_VALUE$,
  T_LINK_ATTRIBUTES as T_LINK_ATTRIBUTES$,
  T_LINK_DROPPED_ATTRIBUTES_COUNT as T_LINK_DROPPED_ATTRIBUTES_COUNT$,
  T_LINK_FLAGS as T_LINK_FLAGS$,
  T_LINK_SPAN_ID as T_LINK_SPAN_ID$,
  T_LINK_TRACE_ID as T_LINK_TRACE_ID$,
  T_LINK_TRACE_STATE as T_LINK_TRACE_STATE$,
  T_RESOURCE_ATTRIBUTES as T_RESOURCE_ATTRIBUTES$,
  T_RESOURCE_DROPPED_ATTRIBUTES_COUNT as T_RESOURCE_DROPPED_ATTRIBUTES_COUNT$,
  T_RESOURCE_SPANS_RESOURCE as T_RESOURCE_SPANS_RESOURCE$,
  T_RESOURCE_SPANS_SCHEMA_URL as T_RESOURCE_SPANS_SCHEMA_URL$,
  T_RESOURCE_SPANS_SCOPE_SPANS as T_RESOURCE_SPANS_SCOPE_SPANS$,
  T_RESOURCE_SPANS as T_RESOURCE_SPANS$,
  T_SCOPE_ATTRIBUTES as T_SCOPE_ATTRIBUTES$,
  T_SCOPE_DROPPED_ATTRIBUTES_COUNT as T_SCOPE_DROPPED_ATTRIBUTES_COUNT$,
  T_SCOPE_NAME as T_SCOPE_NAME$,
  T_SCOPE_SPANS_SCHEMA_URL as T_SCOPE_SPANS_SCHEMA_URL$,
  T_SCOPE_SPANS_SCOPE as T_SCOPE_SPANS_SCOPE$,
  T_SCOPE_SPANS_SPANS as T_SCOPE_SPANS_SPANS$,
  T_SCOPE_VERSION as T_SCOPE_VERSION$,
  T_SPAN_ATTRIBUTES as T_SPAN_ATTRIBUTES$,
  T_SPAN_DROPPED_ATTRIBUTES_COUNT as T_SPAN_DROPPED_ATTRIBUTES_COUNT$,
  T_SPAN_DROPPED_EVENTS_COUNT as T_SPAN_DROPPED_EVENTS_COUNT$,
  T_SPAN_DROPPED_LINKS_COUNT as T_SPAN_DROPPED_LINKS_COUNT$,
  T_SPAN_END_TIME_UNIX_NANO as T_SPAN_END_TIME_UNIX_NANO$,
  T_SPAN_EVENTS as T_SPAN_EVENTS$,
  T_SPAN_FLAGS as T_SPAN_FLAGS$,
  T_SPAN_KIND as T_SPAN_KIND$,
  T_SPAN_LINKS as T_SPAN_LINKS$,
  T_SPAN_NAME as T_SPAN_NAME$,
  T_SPAN_PARENT_SPAN_ID as T_SPAN_PARENT_SPAN_ID$,
  T_SPAN_SPAN_ID as T_SPAN_SPAN_ID$,
  T_SPAN_START_TIME_UNIX_NANO as T_SPAN_START_TIME_UNIX_NANO$,
  T_SPAN_STATUS as T_SPAN_STATUS$,
  T_SPAN_TRACE_ID as T_SPAN_TRACE_ID$,
  T_SPAN_TRACE_STATE as T_SPAN_TRACE_STATE$,
  T_STATUS_CODE as T_STATUS_CODE$,
  T_STATUS_MESSAGE as T_STATUS_MESSAGE$,
} from './tags.ts';
import {
  events as events$,
  links as links$,
  newSlot as newSlot$,
  newString as newString$,
  resource as resource$,
  scope as scope$,
  slots as slots$,
  span as span$,
  strings as strings$,
  V_ARRAY as V_ARRAY$,
  V_BOOL as V_BOOL$,
  V_BYTES as V_BYTES$,
  V_DOUBLE as V_DOUBLE$,
  V_INT as V_INT$,
  V_KVLIST as V_KVLIST$,
  V_NONE as V_NONE$,
  V_STRING as V_STRING$,
  V_STRINGS as V_STRINGS$,
} from './tape.ts';

// Imports copied to local consts: 12-18% less CPU on these paths (ingest/README.md, "Local bindings").
const MAX_ANY_VALUE_DEPTH = MAX_ANY_VALUE_DEPTH$;
const events = events$;
const links = links$;
const newSlot = newSlot$;
const newString = newString$;
const resource = resource$;
const scope = scope$;
const slots = slots$;
const span = span$;
const strings = strings$;
const V_ARRAY = V_ARRAY$;
const V_BOOL = V_BOOL$;
const V_BYTES = V_BYTES$;
const V_DOUBLE = V_DOUBLE$;
const V_INT = V_INT$;
const V_KVLIST = V_KVLIST$;
const V_NONE = V_NONE$;
const V_STRING = V_STRING$;
const V_STRINGS = V_STRINGS$;
const T_ANY_VALUE_ARRAY_VALUE = T_ANY_VALUE_ARRAY_VALUE$;
const T_ANY_VALUE_BOOL_VALUE = T_ANY_VALUE_BOOL_VALUE$;
const T_ANY_VALUE_BYTES_VALUE = T_ANY_VALUE_BYTES_VALUE$;
const T_ANY_VALUE_DOUBLE_VALUE = T_ANY_VALUE_DOUBLE_VALUE$;
const T_ANY_VALUE_INT_VALUE = T_ANY_VALUE_INT_VALUE$;
const T_ANY_VALUE_KVLIST_VALUE = T_ANY_VALUE_KVLIST_VALUE$;
const T_ANY_VALUE_STRING_VALUE = T_ANY_VALUE_STRING_VALUE$;
const T_ARRAY_VALUE_VALUES = T_ARRAY_VALUE_VALUES$;
const T_EVENT_ATTRIBUTES = T_EVENT_ATTRIBUTES$;
const T_EVENT_DROPPED_ATTRIBUTES_COUNT = T_EVENT_DROPPED_ATTRIBUTES_COUNT$;
const T_EVENT_NAME = T_EVENT_NAME$;
const T_EVENT_TIME_UNIX_NANO = T_EVENT_TIME_UNIX_NANO$;
const T_KEY_VALUE_KEY = T_KEY_VALUE_KEY$;
const T_KEY_VALUE_LIST_VALUES = T_KEY_VALUE_LIST_VALUES$;
const T_KEY_VALUE_VALUE = T_KEY_VALUE_VALUE$;
const T_LINK_ATTRIBUTES = T_LINK_ATTRIBUTES$;
const T_LINK_DROPPED_ATTRIBUTES_COUNT = T_LINK_DROPPED_ATTRIBUTES_COUNT$;
const T_LINK_FLAGS = T_LINK_FLAGS$;
const T_LINK_SPAN_ID = T_LINK_SPAN_ID$;
const T_LINK_TRACE_ID = T_LINK_TRACE_ID$;
const T_LINK_TRACE_STATE = T_LINK_TRACE_STATE$;
const T_RESOURCE_ATTRIBUTES = T_RESOURCE_ATTRIBUTES$;
const T_RESOURCE_DROPPED_ATTRIBUTES_COUNT = T_RESOURCE_DROPPED_ATTRIBUTES_COUNT$;
const T_RESOURCE_SPANS = T_RESOURCE_SPANS$;
const T_RESOURCE_SPANS_RESOURCE = T_RESOURCE_SPANS_RESOURCE$;
const T_RESOURCE_SPANS_SCHEMA_URL = T_RESOURCE_SPANS_SCHEMA_URL$;
const T_RESOURCE_SPANS_SCOPE_SPANS = T_RESOURCE_SPANS_SCOPE_SPANS$;
const T_SCOPE_ATTRIBUTES = T_SCOPE_ATTRIBUTES$;
const T_SCOPE_DROPPED_ATTRIBUTES_COUNT = T_SCOPE_DROPPED_ATTRIBUTES_COUNT$;
const T_SCOPE_NAME = T_SCOPE_NAME$;
const T_SCOPE_SPANS_SCHEMA_URL = T_SCOPE_SPANS_SCHEMA_URL$;
const T_SCOPE_SPANS_SCOPE = T_SCOPE_SPANS_SCOPE$;
const T_SCOPE_SPANS_SPANS = T_SCOPE_SPANS_SPANS$;
const T_SCOPE_VERSION = T_SCOPE_VERSION$;
const T_SPAN_ATTRIBUTES = T_SPAN_ATTRIBUTES$;
const T_SPAN_DROPPED_ATTRIBUTES_COUNT = T_SPAN_DROPPED_ATTRIBUTES_COUNT$;
const T_SPAN_DROPPED_EVENTS_COUNT = T_SPAN_DROPPED_EVENTS_COUNT$;
const T_SPAN_DROPPED_LINKS_COUNT = T_SPAN_DROPPED_LINKS_COUNT$;
const T_SPAN_END_TIME_UNIX_NANO = T_SPAN_END_TIME_UNIX_NANO$;
const T_SPAN_EVENTS = T_SPAN_EVENTS$;
const T_SPAN_FLAGS = T_SPAN_FLAGS$;
const T_SPAN_KIND = T_SPAN_KIND$;
const T_SPAN_LINKS = T_SPAN_LINKS$;
const T_SPAN_NAME = T_SPAN_NAME$;
const T_SPAN_PARENT_SPAN_ID = T_SPAN_PARENT_SPAN_ID$;
const T_SPAN_SPAN_ID = T_SPAN_SPAN_ID$;
const T_SPAN_START_TIME_UNIX_NANO = T_SPAN_START_TIME_UNIX_NANO$;
const T_SPAN_STATUS = T_SPAN_STATUS$;
const T_SPAN_TRACE_ID = T_SPAN_TRACE_ID$;
const T_SPAN_TRACE_STATE = T_SPAN_TRACE_STATE$;
const T_STATUS_CODE = T_STATUS_CODE$;
const T_STATUS_MESSAGE = T_STATUS_MESSAGE$;

/** What the reader calls as it reads; a callback may throw OUTSIDE to stop (readTraceRequest then returns false). */
export interface TraceRequestVisitor {
  /** A ResourceSpans' resource (`resource`), before any of its scopes. */
  resource(): void;
  /** A ScopeSpans' scope (`scope`), before any of its spans. */
  scope(): void;
  /** One span (`span`, `events`, `links`, and their slots). */
  span(): void;
}

/** Thrown (one preallocated value: no stack captured) when the bytes leave the subset. */
export const OUTSIDE: object = Object.freeze({ outside: true });

const EMPTY = Buffer.alloc(0);

/** Marks field `f` seen in `seen`; a singular field given twice leaves the subset. */
function once(seen: number, f: number): number {
  const bit = 1 << f;
  if (seen & bit) throw OUTSIDE;
  return seen | bit;
}

function pushRange(list: Int32Array, n: number, a: number, b: number): Int32Array {
  let l = list;
  if (2 * n + 2 > l.length) {
    l = new Int32Array(l.length * 2);
    l.set(list);
  }
  l[2 * n] = a;
  l[2 * n + 1] = b;
  return l;
}

/** One read's state: the bytes, the position, and what the parts read so far leave for the next ones. */
class TraceReader {
  private b: Buffer = EMPTY;
  private p = 0;
  /** The last int64 varint read (varint64), as unsigned 32-bit halves. */
  private lo = 0;
  private hi = 0;
  /** Strings of the resource's and the scope's arrays, kept while their spans are read. */
  private resourceStrings = 0;
  private stringsMark = 0;
  /** Where the current span's events and links are ([start, end) pairs), read after its attributes. */
  private eventRanges: Int32Array = new Int32Array(64);
  private linkRanges: Int32Array = new Int32Array(64);

  /** A tag or a length: at most 4 varint bytes (< 2^28). */
  private u28(end: number): number {
    let v = 0;
    for (let shift = 0; shift < 28; shift += 7) {
      if (this.p >= end) throw OUTSIDE;
      const c = this.b[this.p++] as number;
      v |= (c & 0x7f) << shift;
      if (c < 0x80) return v;
    }
    throw OUTSIDE;
  }

  /** One varint byte below 0x80 (a bool, an enum). */
  private byte(end: number): number {
    if (this.p >= end) throw OUTSIDE;
    const c = this.b[this.p++] as number;
    if (c >= 0x80) throw OUTSIDE;
    return c;
  }

  /** An int64 varint (at most 10 bytes) into lo/hi, unsigned 32-bit halves. */
  private varint64(end: number): void {
    let lo = 0;
    let hi = 0;
    for (let i = 0; ; i++) {
      if (i === 10 || this.p >= end) throw OUTSIDE;
      const c = this.b[this.p++] as number;
      if (i < 4) lo |= (c & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (c & 0x0f) << 28;
        hi |= (c & 0x7f) >> 4;
      } else hi |= (c & 0x7f) << (7 * i - 32);
      if (c < 0x80) break;
    }
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** A length-delimited field's end, within `end`. */
  private sub(end: number): number {
    const n = this.u28(end);
    const e = this.p + n;
    if (e > end) throw OUTSIDE;
    return e;
  }

  private fixed(end: number, n: number): number {
    const at = this.p;
    if (at + n > end) throw OUTSIDE;
    this.p = at + n;
    return at;
  }

  /** A string field's start (it ends at p): in bounds and valid UTF-8. */
  private text(end: number): number {
    const e = this.sub(end);
    const start = this.p;
    let bits = 0;
    for (let i = start; i < e; i++) bits |= this.b[i] as number;
    // ASCII, nearly every telemetry string, needs no further check.
    if (bits > 0x7f && !isUtf8(this.b.subarray(start, e))) throw OUTSIDE;
    this.p = e;
    return start;
  }

  private ended(end: number): void {
    if (this.p !== end) throw OUTSIDE;
  }

  // ---------------------------------------------------------------------------------------------- values

  /** An AnyValue nested `level` deep (1: an attribute's value), validated in full, not recorded. */
  private nestedValue(end: number, level: number): void {
    if (level > MAX_ANY_VALUE_DEPTH) throw OUTSIDE;
    if (this.p === end) return;
    const t = this.u28(end);
    this.valueField(t, end, level);
    this.ended(end);
  }

  /** One field of an AnyValue; returns its kind. */
  private valueField(t: number, end: number, level: number): number {
    switch (t) {
      case T_ANY_VALUE_STRING_VALUE:
        this.text(end);
        return V_STRING;
      case T_ANY_VALUE_BOOL_VALUE:
        this.byte(end);
        return V_BOOL;
      case T_ANY_VALUE_INT_VALUE:
        this.varint64(end);
        return V_INT;
      case T_ANY_VALUE_DOUBLE_VALUE:
        this.fixed(end, 8);
        return V_DOUBLE;
      case T_ANY_VALUE_ARRAY_VALUE: {
        const e = this.sub(end);
        while (this.p < e) {
          if (this.u28(e) !== T_ARRAY_VALUE_VALUES) throw OUTSIDE;
          this.nestedValue(this.sub(e), level + 1);
        }
        return V_ARRAY;
      }
      case T_ANY_VALUE_KVLIST_VALUE: {
        const e = this.sub(end);
        while (this.p < e) {
          if (this.u28(e) !== T_KEY_VALUE_LIST_VALUES) throw OUTSIDE;
          this.keyValue(this.sub(e), level + 1, false);
        }
        return V_KVLIST;
      }
      case T_ANY_VALUE_BYTES_VALUE:
        this.p = this.sub(end);
        return V_BYTES;
      default:
        throw OUTSIDE;
    }
  }

  /** A top-level attribute's AnyValue into slot i; string arrays are recorded element by element. */
  private slotValue(i: number, end: number): void {
    if (this.p === end) return;
    const t = this.u28(end);
    const at = this.p;
    if (t === T_ANY_VALUE_STRING_VALUE) {
      const start = this.text(end);
      slots.kind[i] = V_STRING;
      slots.a[i] = start;
      slots.b[i] = this.p - start;
    } else if (t === T_ANY_VALUE_BOOL_VALUE) {
      slots.kind[i] = V_BOOL;
      slots.a[i] = this.byte(end) === 0 ? 0 : 1;
    } else if (t === T_ANY_VALUE_INT_VALUE) {
      this.varint64(end);
      slots.kind[i] = V_INT;
      slots.a[i] = this.lo;
      slots.b[i] = this.hi;
    } else if (t === T_ANY_VALUE_ARRAY_VALUE) {
      const e = this.sub(end);
      const first = strings.count;
      let allStrings = true;
      while (this.p < e) {
        if (this.u28(e) !== T_ARRAY_VALUE_VALUES) throw OUTSIDE;
        const ve = this.sub(e);
        if (allStrings && this.p < ve && this.b[this.p] === T_ANY_VALUE_STRING_VALUE) {
          this.p++;
          const start = this.text(ve);
          this.ended(ve); // a second value in one AnyValue leaves the subset
          newString(start, this.p - start);
          continue;
        }
        allStrings = false;
        this.nestedValue(ve, 2);
      }
      if (allStrings) {
        slots.kind[i] = V_STRINGS;
        slots.a[i] = first;
        slots.b[i] = strings.count;
      } else {
        strings.count = first;
        slots.kind[i] = V_ARRAY;
        slots.a[i] = at;
        slots.b[i] = e;
      }
    } else {
      slots.kind[i] = this.valueField(t, end, 1);
      slots.a[i] = at;
      slots.b[i] = this.p;
    }
    this.ended(end);
  }

  /**
   * A KeyValue: the key at most once, the value at most once. At the top level (`level` 0) it takes a slot and must
   * have a key; nested in a key-value list (`level` its AnyValue's nesting) it is only validated.
   */
  private keyValue(end: number, level: number, top: boolean): void {
    const i = top ? newSlot() : -1;
    let key = -1;
    let hasValue = false;
    if (top) slots.kind[i] = V_NONE;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_KEY_VALUE_KEY && key < 0) {
        const e = this.sub(end);
        key = this.p;
        let h = e - this.p;
        let bits = 0;
        for (let j = this.p; j < e; j++) {
          const c = this.b[j] as number;
          bits |= c;
          h = (Math.imul(h, 31) + c) | 0;
        }
        if (bits > 0x7f && !isUtf8(this.b.subarray(this.p, e))) throw OUTSIDE;
        if (top) {
          slots.key[i] = this.p;
          slots.keyLen[i] = e - this.p;
          slots.hash[i] = h;
        }
        this.p = e;
      } else if (t === T_KEY_VALUE_VALUE && !hasValue) {
        hasValue = true;
        const e = this.sub(end);
        if (top) this.slotValue(i, e);
        else this.nestedValue(e, level);
      } else throw OUTSIDE;
    }
    this.ended(end);
    if (top && key < 0) throw OUTSIDE;
  }

  // ---------------------------------------------------------------------------------------------- parts

  private status(end: number): void {
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_STATUS_MESSAGE) {
        seen = once(seen, 2);
        span.statusMessage = this.text(end);
        span.statusMessageLen = this.p - span.statusMessage;
      } else if (t === T_STATUS_CODE) {
        seen = once(seen, 3);
        span.statusCode = this.byte(end);
      } else throw OUTSIDE;
    }
    this.ended(end);
  }

  /** Bytes of an id field: its start (the length is p - start). */
  private bytesField(end: number): number {
    const e = this.sub(end);
    const at = this.p;
    this.p = e;
    return at;
  }

  private readEvent(k: number, from: number, end: number): void {
    const ev = events.list[k] as (typeof events.list)[number];
    ev.time = -1;
    ev.name = -1;
    ev.nameLen = 0;
    ev.kvFrom = slots.count;
    this.p = from;
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_EVENT_TIME_UNIX_NANO) {
        seen = once(seen, 1);
        ev.time = this.fixed(end, 8);
      } else if (t === T_EVENT_NAME) {
        seen = once(seen, 2);
        ev.name = this.text(end);
        ev.nameLen = this.p - ev.name;
      } else if (t === T_EVENT_ATTRIBUTES) this.keyValue(this.sub(end), 0, true);
      else if (t === T_EVENT_DROPPED_ATTRIBUTES_COUNT) {
        seen = once(seen, 4);
        this.u28(end);
      } else throw OUTSIDE;
    }
    this.ended(end);
    ev.kvTo = slots.count;
  }

  private readLink(k: number, from: number, end: number): void {
    const l = links.list[k] as (typeof links.list)[number];
    l.traceId = -1;
    l.traceIdLen = 0;
    l.spanId = -1;
    l.spanIdLen = 0;
    l.state = -1;
    l.stateLen = 0;
    l.kvFrom = slots.count;
    this.p = from;
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_LINK_TRACE_ID) {
        seen = once(seen, 1);
        l.traceId = this.bytesField(end);
        l.traceIdLen = this.p - l.traceId;
      } else if (t === T_LINK_SPAN_ID) {
        seen = once(seen, 2);
        l.spanId = this.bytesField(end);
        l.spanIdLen = this.p - l.spanId;
      } else if (t === T_LINK_TRACE_STATE) {
        seen = once(seen, 3);
        l.state = this.text(end);
        l.stateLen = this.p - l.state;
      } else if (t === T_LINK_ATTRIBUTES) this.keyValue(this.sub(end), 0, true);
      else if (t === T_LINK_DROPPED_ATTRIBUTES_COUNT) {
        seen = once(seen, 5);
        this.u28(end);
      } else if (t === T_LINK_FLAGS) {
        seen = once(seen, 6);
        this.fixed(end, 4);
      } else throw OUTSIDE;
    }
    this.ended(end);
    l.kvTo = slots.count;
  }

  private readSpan(end: number): void {
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
    span.status = -1;
    span.statusMessage = -1;
    span.statusMessageLen = 0;
    span.statusCode = 0;
    span.attrFrom = slots.count;
    strings.count = this.stringsMark;
    let nEvents = 0;
    let nLinks = 0;
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      switch (t) {
        case T_SPAN_TRACE_ID:
          seen = once(seen, 1);
          span.traceId = this.bytesField(end);
          span.traceIdLen = this.p - span.traceId;
          break;
        case T_SPAN_SPAN_ID:
          seen = once(seen, 2);
          span.spanId = this.bytesField(end);
          span.spanIdLen = this.p - span.spanId;
          break;
        case T_SPAN_TRACE_STATE:
          seen = once(seen, 3);
          span.traceState = this.text(end);
          span.traceStateLen = this.p - span.traceState;
          break;
        case T_SPAN_PARENT_SPAN_ID:
          seen = once(seen, 4);
          span.parent = this.bytesField(end);
          span.parentLen = this.p - span.parent;
          break;
        case T_SPAN_NAME:
          seen = once(seen, 5);
          span.name = this.text(end);
          span.nameLen = this.p - span.name;
          break;
        case T_SPAN_KIND:
          seen = once(seen, 6);
          span.kind = this.byte(end);
          break;
        case T_SPAN_START_TIME_UNIX_NANO:
          seen = once(seen, 7);
          span.start = this.fixed(end, 8);
          break;
        case T_SPAN_END_TIME_UNIX_NANO:
          seen = once(seen, 8);
          span.end = this.fixed(end, 8);
          break;
        case T_SPAN_ATTRIBUTES:
          this.keyValue(this.sub(end), 0, true);
          break;
        case T_SPAN_EVENTS: {
          const e = this.sub(end);
          this.eventRanges = pushRange(this.eventRanges, nEvents++, this.p, e);
          this.p = e;
          break;
        }
        case T_SPAN_LINKS: {
          const e = this.sub(end);
          this.linkRanges = pushRange(this.linkRanges, nLinks++, this.p, e);
          this.p = e;
          break;
        }
        case T_SPAN_STATUS: {
          seen = once(seen, 15);
          const e = this.sub(end);
          span.status = this.p;
          this.status(e);
          break;
        }
        case T_SPAN_DROPPED_ATTRIBUTES_COUNT:
        case T_SPAN_DROPPED_EVENTS_COUNT:
        case T_SPAN_DROPPED_LINKS_COUNT:
          seen = once(seen, t >>> 3);
          this.u28(end);
          break;
        case T_SPAN_FLAGS:
          seen = once(seen, 16);
          this.fixed(end, 4);
          break;
        default:
          throw OUTSIDE;
      }
    }
    this.ended(end);
    span.attrTo = slots.count;
    while (events.list.length < nEvents) events.list.push({ time: -1, name: -1, nameLen: 0, kvFrom: 0, kvTo: 0 });
    while (links.list.length < nLinks)
      links.list.push({
        traceId: -1,
        traceIdLen: 0,
        spanId: -1,
        spanIdLen: 0,
        state: -1,
        stateLen: 0,
        kvFrom: 0,
        kvTo: 0,
      });
    for (let k = 0; k < nEvents; k++)
      this.readEvent(k, this.eventRanges[2 * k] as number, this.eventRanges[2 * k + 1] as number);
    for (let k = 0; k < nLinks; k++)
      this.readLink(k, this.linkRanges[2 * k] as number, this.linkRanges[2 * k + 1] as number);
    events.count = nEvents;
    links.count = nLinks;
    this.p = end;
  }

  private readResource(end: number): void {
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_RESOURCE_ATTRIBUTES) this.keyValue(this.sub(end), 0, true);
      else if (t === T_RESOURCE_DROPPED_ATTRIBUTES_COUNT) {
        seen = once(seen, 2);
        this.u28(end);
      } else throw OUTSIDE; // entity refs (3) included
    }
    this.ended(end);
  }

  private readScope(end: number): void {
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_SCOPE_NAME) {
        seen = once(seen, 1);
        scope.name = this.text(end);
        scope.nameLen = this.p - scope.name;
      } else if (t === T_SCOPE_VERSION) {
        seen = once(seen, 2);
        scope.version = this.text(end);
        scope.versionLen = this.p - scope.version;
      } else if (t === T_SCOPE_ATTRIBUTES) this.keyValue(this.sub(end), 0, true);
      else if (t === T_SCOPE_DROPPED_ATTRIBUTES_COUNT) {
        seen = once(seen, 4);
        this.u28(end);
      } else throw OUTSIDE;
    }
    this.ended(end);
  }

  /** A ScopeSpans: its scope (wherever it is on the wire) first, then its spans in order. */
  private scopeSpans(v: TraceRequestVisitor, start: number, end: number): void {
    scope.from = -1;
    scope.to = -1;
    scope.name = -1;
    scope.nameLen = 0;
    scope.version = -1;
    scope.versionLen = 0;
    scope.schemaUrl = -1;
    scope.schemaUrlLen = 0;
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_SCOPE_SPANS_SCOPE) {
        seen = once(seen, 1);
        scope.to = this.sub(end);
        scope.from = this.p;
        this.p = scope.to;
      } else if (t === T_SCOPE_SPANS_SPANS) this.p = this.sub(end);
      else if (t === T_SCOPE_SPANS_SCHEMA_URL) {
        seen = once(seen, 3);
        scope.schemaUrl = this.text(end);
        scope.schemaUrlLen = this.p - scope.schemaUrl;
      } else throw OUTSIDE;
    }
    this.ended(end);
    scope.kvFrom = slots.count;
    strings.count = this.resourceStrings;
    if (scope.from >= 0) {
      this.p = scope.from;
      this.readScope(scope.to);
    }
    scope.kvTo = slots.count;
    this.stringsMark = strings.count;
    scope.index++;
    v.scope();
    this.p = start;
    while (this.p < end) {
      const tagAt = this.p;
      const t = this.u28(end);
      const e = this.sub(end);
      if (t === T_SCOPE_SPANS_SPANS) {
        span.tagAt = tagAt;
        span.from = this.p;
        span.to = e;
        this.readSpan(e);
        v.span();
        slots.count = scope.kvTo;
      }
      this.p = e;
    }
  }

  /** A ResourceSpans: its resource (wherever it is on the wire) first, then its scopes in order. */
  private resourceSpans(v: TraceRequestVisitor, end: number): void {
    const start = this.p;
    resource.from = -1;
    resource.to = -1;
    resource.schemaUrl = -1;
    resource.schemaUrlLen = 0;
    let seen = 0;
    while (this.p < end) {
      const t = this.u28(end);
      if (t === T_RESOURCE_SPANS_RESOURCE) {
        seen = once(seen, 1);
        resource.to = this.sub(end);
        resource.from = this.p;
        this.p = resource.to;
      } else if (t === T_RESOURCE_SPANS_SCOPE_SPANS) this.p = this.sub(end);
      else if (t === T_RESOURCE_SPANS_SCHEMA_URL) {
        seen = once(seen, 3);
        resource.schemaUrl = this.text(end);
        resource.schemaUrlLen = this.p - resource.schemaUrl;
      } else throw OUTSIDE;
    }
    this.ended(end);
    slots.count = 0;
    strings.count = 0;
    resource.kvFrom = 0;
    if (resource.from >= 0) {
      this.p = resource.from;
      this.readResource(resource.to);
    }
    resource.kvTo = slots.count;
    this.resourceStrings = strings.count;
    resource.index++;
    v.resource();
    this.p = start;
    while (this.p < end) {
      const t = this.u28(end);
      const e = this.sub(end);
      if (t === T_RESOURCE_SPANS_SCOPE_SPANS) {
        this.scopeSpans(v, this.p, e);
        slots.count = resource.kvTo;
      }
      this.p = e;
    }
  }

  read(bytes: Buffer, v: TraceRequestVisitor): boolean {
    this.b = bytes;
    this.p = 0;
    resource.index = -1;
    scope.index = -1;
    const end = bytes.length;
    try {
      while (this.p < end) {
        if (this.u28(end) !== T_RESOURCE_SPANS) throw OUTSIDE;
        const e = this.sub(end);
        this.resourceSpans(v, e);
        this.p = e;
      }
      return true;
    } catch (err) {
      if (err === OUTSIDE) return false;
      throw err;
    } finally {
      this.b = EMPTY;
    }
  }
}

// One reader for every call: a read runs to completion synchronously, and the tape it writes is one module's too.
const reader = new TraceReader();

/**
 * Reads `bytes` as an `ExportTraceServiceRequest`, calling `v` per resource, scope and span. False when the bytes
 * leave the subset (or a callback threw OUTSIDE): what was called so far is to be undone by the caller.
 */
export function readTraceRequest(bytes: Buffer, v: TraceRequestVisitor): boolean {
  return reader.read(bytes, v);
}
