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

// Local bindings: imports read through the module loader's getters cost a call per use on these paths.
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

let B: Buffer = Buffer.alloc(0);
let P = 0;

/** A tag or a length: at most 4 varint bytes (< 2^28). */
function u28(end: number): number {
  let v = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (P >= end) throw OUTSIDE;
    const c = B[P++] as number;
    v |= (c & 0x7f) << shift;
    if (c < 0x80) return v;
  }
  throw OUTSIDE;
}

/** One varint byte below 0x80 (a bool, an enum). */
function byte(end: number): number {
  if (P >= end) throw OUTSIDE;
  const c = B[P++] as number;
  if (c >= 0x80) throw OUTSIDE;
  return c;
}

let LO = 0;
let HI = 0;
/** An int64 varint (at most 10 bytes) into LO/HI, unsigned 32-bit halves. */
function varint64(end: number): void {
  let lo = 0;
  let hi = 0;
  for (let i = 0; ; i++) {
    if (i === 10 || P >= end) throw OUTSIDE;
    const c = B[P++] as number;
    if (i < 4) lo |= (c & 0x7f) << (7 * i);
    else if (i === 4) {
      lo |= (c & 0x0f) << 28;
      hi |= (c & 0x7f) >> 4;
    } else hi |= (c & 0x7f) << (7 * i - 32);
    if (c < 0x80) break;
  }
  LO = lo >>> 0;
  HI = hi >>> 0;
}

/** A length-delimited field's end, within `end`. */
function sub(end: number): number {
  const n = u28(end);
  const e = P + n;
  if (e > end) throw OUTSIDE;
  return e;
}

function fixed(end: number, n: number): number {
  const at = P;
  if (at + n > end) throw OUTSIDE;
  P = at + n;
  return at;
}

/** A string field's start (it ends at P): in bounds and valid UTF-8. */
function text(end: number): number {
  const e = sub(end);
  const start = P;
  let bits = 0;
  for (let i = start; i < e; i++) bits |= B[i] as number;
  // ASCII, nearly every telemetry string, needs no further check.
  if (bits > 0x7f && !isUtf8(B.subarray(start, e))) throw OUTSIDE;
  P = e;
  return start;
}

function ended(end: number): void {
  if (P !== end) throw OUTSIDE;
}

/** Marks field `f` seen in `seen`; a singular field given twice leaves the subset. */
function once(seen: number, f: number): number {
  const bit = 1 << f;
  if (seen & bit) throw OUTSIDE;
  return seen | bit;
}

// ---------------------------------------------------------------------------------------------- values

/** An AnyValue nested `level` deep (1: an attribute's value), validated in full, not recorded. */
function nestedValue(end: number, level: number): void {
  if (level > MAX_ANY_VALUE_DEPTH) throw OUTSIDE;
  if (P === end) return;
  const t = u28(end);
  valueField(t, end, level);
  ended(end);
}

/** One field of an AnyValue; returns its kind. */
function valueField(t: number, end: number, level: number): number {
  switch (t) {
    case (1 << 3) | 2:
      text(end);
      return V_STRING;
    case (2 << 3) | 0:
      byte(end);
      return V_BOOL;
    case (3 << 3) | 0:
      varint64(end);
      return V_INT;
    case (4 << 3) | 1:
      fixed(end, 8);
      return V_DOUBLE;
    case (5 << 3) | 2: {
      const e = sub(end);
      while (P < e) {
        if (u28(e) !== ((1 << 3) | 2)) throw OUTSIDE;
        nestedValue(sub(e), level + 1);
      }
      return V_ARRAY;
    }
    case (6 << 3) | 2: {
      const e = sub(end);
      while (P < e) {
        if (u28(e) !== ((1 << 3) | 2)) throw OUTSIDE;
        keyValue(sub(e), level + 1, false);
      }
      return V_KVLIST;
    }
    case (7 << 3) | 2:
      P = sub(end);
      return V_BYTES;
    default:
      throw OUTSIDE;
  }
}

/** A top-level attribute's AnyValue into slot i; string arrays are recorded element by element. */
function slotValue(i: number, end: number): void {
  if (P === end) return;
  const t = u28(end);
  const at = P;
  if (t === ((1 << 3) | 2)) {
    const start = text(end);
    slots.kind[i] = V_STRING;
    slots.a[i] = start;
    slots.b[i] = P - start;
  } else if (t === ((2 << 3) | 0)) {
    slots.kind[i] = V_BOOL;
    slots.a[i] = byte(end) === 0 ? 0 : 1;
  } else if (t === ((3 << 3) | 0)) {
    varint64(end);
    slots.kind[i] = V_INT;
    slots.a[i] = LO;
    slots.b[i] = HI;
  } else if (t === ((5 << 3) | 2)) {
    const e = sub(end);
    const first = strings.count;
    let allStrings = true;
    while (P < e) {
      if (u28(e) !== ((1 << 3) | 2)) throw OUTSIDE;
      const ve = sub(e);
      if (allStrings && P < ve && B[P] === ((1 << 3) | 2)) {
        P++;
        const start = text(ve);
        ended(ve); // a second value in one AnyValue leaves the subset
        newString(start, P - start);
        continue;
      }
      allStrings = false;
      nestedValue(ve, 2);
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
    slots.kind[i] = valueField(t, end, 1);
    slots.a[i] = at;
    slots.b[i] = P;
  }
  ended(end);
}

/**
 * A KeyValue: the key at most once, the value at most once. At the top level (`level` 0) it takes a slot and must
 * have a key; nested in a key-value list (`level` its AnyValue's nesting) it is only validated.
 */
function keyValue(end: number, level: number, top: boolean): void {
  const i = top ? newSlot() : -1;
  let key = -1;
  let hasValue = false;
  if (top) slots.kind[i] = V_NONE;
  while (P < end) {
    const t = u28(end);
    if (t === ((1 << 3) | 2) && key < 0) {
      const e = sub(end);
      key = P;
      let h = e - P;
      let bits = 0;
      for (let j = P; j < e; j++) {
        const c = B[j] as number;
        bits |= c;
        h = (Math.imul(h, 31) + c) | 0;
      }
      if (bits > 0x7f && !isUtf8(B.subarray(P, e))) throw OUTSIDE;
      if (top) {
        slots.key[i] = P;
        slots.keyLen[i] = e - P;
        slots.hash[i] = h;
      }
      P = e;
    } else if (t === ((2 << 3) | 2) && !hasValue) {
      hasValue = true;
      const e = sub(end);
      if (top) slotValue(i, e);
      else nestedValue(e, level);
    } else throw OUTSIDE;
  }
  ended(end);
  if (top && key < 0) throw OUTSIDE;
}

// ---------------------------------------------------------------------------------------------- parts

function status(end: number): void {
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    if (t === ((2 << 3) | 2)) {
      seen = once(seen, 2);
      span.statusMessage = text(end);
      span.statusMessageLen = P - span.statusMessage;
    } else if (t === ((3 << 3) | 0)) {
      seen = once(seen, 3);
      span.statusCode = byte(end);
    } else throw OUTSIDE;
  }
  ended(end);
}

/** Bytes of an id field: its start (the length is P - start). */
function bytesField(end: number): number {
  const e = sub(end);
  const at = P;
  P = e;
  return at;
}

function readEvent(k: number, from: number, end: number): void {
  const ev = events.list[k] as (typeof events.list)[number];
  ev.time = -1;
  ev.name = -1;
  ev.nameLen = 0;
  ev.kvFrom = slots.count;
  P = from;
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    if (t === ((1 << 3) | 1)) {
      seen = once(seen, 1);
      ev.time = fixed(end, 8);
    } else if (t === ((2 << 3) | 2)) {
      seen = once(seen, 2);
      ev.name = text(end);
      ev.nameLen = P - ev.name;
    } else if (t === ((3 << 3) | 2)) keyValue(sub(end), 0, true);
    else if (t === ((4 << 3) | 0)) {
      seen = once(seen, 4);
      u28(end);
    } else throw OUTSIDE;
  }
  ended(end);
  ev.kvTo = slots.count;
}

function readLink(k: number, from: number, end: number): void {
  const l = links.list[k] as (typeof links.list)[number];
  l.traceId = -1;
  l.traceIdLen = 0;
  l.spanId = -1;
  l.spanIdLen = 0;
  l.state = -1;
  l.stateLen = 0;
  l.kvFrom = slots.count;
  P = from;
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    if (t === ((1 << 3) | 2)) {
      seen = once(seen, 1);
      l.traceId = bytesField(end);
      l.traceIdLen = P - l.traceId;
    } else if (t === ((2 << 3) | 2)) {
      seen = once(seen, 2);
      l.spanId = bytesField(end);
      l.spanIdLen = P - l.spanId;
    } else if (t === ((3 << 3) | 2)) {
      seen = once(seen, 3);
      l.state = text(end);
      l.stateLen = P - l.state;
    } else if (t === ((4 << 3) | 2)) keyValue(sub(end), 0, true);
    else if (t === ((5 << 3) | 0)) {
      seen = once(seen, 5);
      u28(end);
    } else if (t === ((6 << 3) | 5)) {
      seen = once(seen, 6);
      fixed(end, 4);
    } else throw OUTSIDE;
  }
  ended(end);
  l.kvTo = slots.count;
}

/** Strings of the resource's and the scope's arrays, kept while their spans are read. */
let resourceStrings = 0;
let stringsMark = 0;

// Where the current span's events and links are ([start, end) pairs), read after its attributes.
let eventRanges: Int32Array = new Int32Array(64);
let linkRanges: Int32Array = new Int32Array(64);

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
  span.status = -1;
  span.statusMessage = -1;
  span.statusMessageLen = 0;
  span.statusCode = 0;
  span.attrFrom = slots.count;
  strings.count = stringsMark;
  let nEvents = 0;
  let nLinks = 0;
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    switch (t) {
      case (1 << 3) | 2:
        seen = once(seen, 1);
        span.traceId = bytesField(end);
        span.traceIdLen = P - span.traceId;
        break;
      case (2 << 3) | 2:
        seen = once(seen, 2);
        span.spanId = bytesField(end);
        span.spanIdLen = P - span.spanId;
        break;
      case (3 << 3) | 2:
        seen = once(seen, 3);
        span.traceState = text(end);
        span.traceStateLen = P - span.traceState;
        break;
      case (4 << 3) | 2:
        seen = once(seen, 4);
        span.parent = bytesField(end);
        span.parentLen = P - span.parent;
        break;
      case (5 << 3) | 2:
        seen = once(seen, 5);
        span.name = text(end);
        span.nameLen = P - span.name;
        break;
      case (6 << 3) | 0:
        seen = once(seen, 6);
        span.kind = byte(end);
        break;
      case (7 << 3) | 1:
        seen = once(seen, 7);
        span.start = fixed(end, 8);
        break;
      case (8 << 3) | 1:
        seen = once(seen, 8);
        span.end = fixed(end, 8);
        break;
      case (9 << 3) | 2:
        keyValue(sub(end), 0, true);
        break;
      case (11 << 3) | 2: {
        const e = sub(end);
        eventRanges = pushRange(eventRanges, nEvents++, P, e);
        P = e;
        break;
      }
      case (13 << 3) | 2: {
        const e = sub(end);
        linkRanges = pushRange(linkRanges, nLinks++, P, e);
        P = e;
        break;
      }
      case (15 << 3) | 2: {
        seen = once(seen, 15);
        const e = sub(end);
        span.status = P;
        status(e);
        break;
      }
      case (10 << 3) | 0:
      case (12 << 3) | 0:
      case (14 << 3) | 0:
        seen = once(seen, t >>> 3);
        u28(end);
        break;
      case (16 << 3) | 5:
        seen = once(seen, 16);
        fixed(end, 4);
        break;
      default:
        throw OUTSIDE;
    }
  }
  ended(end);
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
  for (let k = 0; k < nEvents; k++) readEvent(k, eventRanges[2 * k] as number, eventRanges[2 * k + 1] as number);
  for (let k = 0; k < nLinks; k++) readLink(k, linkRanges[2 * k] as number, linkRanges[2 * k + 1] as number);
  events.count = nEvents;
  links.count = nLinks;
  P = end;
}

function readResource(end: number): void {
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    if (t === ((1 << 3) | 2)) keyValue(sub(end), 0, true);
    else if (t === ((2 << 3) | 0)) {
      seen = once(seen, 2);
      u28(end);
    } else throw OUTSIDE; // entity refs (3) included
  }
  ended(end);
}

function readScope(end: number): void {
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    if (t === ((1 << 3) | 2)) {
      seen = once(seen, 1);
      scope.name = text(end);
      scope.nameLen = P - scope.name;
    } else if (t === ((2 << 3) | 2)) {
      seen = once(seen, 2);
      scope.version = text(end);
      scope.versionLen = P - scope.version;
    } else if (t === ((3 << 3) | 2)) keyValue(sub(end), 0, true);
    else if (t === ((4 << 3) | 0)) {
      seen = once(seen, 4);
      u28(end);
    } else throw OUTSIDE;
  }
  ended(end);
}

/** A ScopeSpans: its scope (wherever it is on the wire) first, then its spans in order. */
function scopeSpans(v: TraceRequestVisitor, start: number, end: number): void {
  scope.from = -1;
  scope.to = -1;
  scope.name = -1;
  scope.nameLen = 0;
  scope.version = -1;
  scope.versionLen = 0;
  scope.schemaUrl = -1;
  scope.schemaUrlLen = 0;
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    if (t === ((1 << 3) | 2)) {
      seen = once(seen, 1);
      scope.to = sub(end);
      scope.from = P;
      P = scope.to;
    } else if (t === ((2 << 3) | 2)) P = sub(end);
    else if (t === ((3 << 3) | 2)) {
      seen = once(seen, 3);
      scope.schemaUrl = text(end);
      scope.schemaUrlLen = P - scope.schemaUrl;
    } else throw OUTSIDE;
  }
  ended(end);
  scope.kvFrom = slots.count;
  strings.count = resourceStrings;
  if (scope.from >= 0) {
    P = scope.from;
    readScope(scope.to);
  }
  scope.kvTo = slots.count;
  stringsMark = strings.count;
  scope.index++;
  v.scope();
  P = start;
  while (P < end) {
    const tagAt = P;
    const t = u28(end);
    const e = sub(end);
    if (t === ((2 << 3) | 2)) {
      span.tagAt = tagAt;
      span.from = P;
      span.to = e;
      readSpan(e);
      v.span();
      slots.count = scope.kvTo;
    }
    P = e;
  }
}

/** A ResourceSpans: its resource (wherever it is on the wire) first, then its scopes in order. */
function resourceSpans(v: TraceRequestVisitor, end: number): void {
  const start = P;
  resource.from = -1;
  resource.to = -1;
  resource.schemaUrl = -1;
  resource.schemaUrlLen = 0;
  let seen = 0;
  while (P < end) {
    const t = u28(end);
    if (t === ((1 << 3) | 2)) {
      seen = once(seen, 1);
      resource.to = sub(end);
      resource.from = P;
      P = resource.to;
    } else if (t === ((2 << 3) | 2)) P = sub(end);
    else if (t === ((3 << 3) | 2)) {
      seen = once(seen, 3);
      resource.schemaUrl = text(end);
      resource.schemaUrlLen = P - resource.schemaUrl;
    } else throw OUTSIDE;
  }
  ended(end);
  slots.count = 0;
  strings.count = 0;
  resource.kvFrom = 0;
  if (resource.from >= 0) {
    P = resource.from;
    readResource(resource.to);
  }
  resource.kvTo = slots.count;
  resourceStrings = strings.count;
  resource.index++;
  v.resource();
  P = start;
  while (P < end) {
    const t = u28(end);
    const e = sub(end);
    if (t === ((2 << 3) | 2)) {
      scopeSpans(v, P, e);
      slots.count = resource.kvTo;
    }
    P = e;
  }
}

/**
 * Reads `bytes` as an `ExportTraceServiceRequest`, calling `v` per resource, scope and span. False when the bytes
 * leave the subset (or a callback threw OUTSIDE): what was called so far is to be undone by the caller.
 */
export function readTraceRequest(bytes: Buffer, v: TraceRequestVisitor): boolean {
  B = bytes;
  P = 0;
  resource.index = -1;
  scope.index = -1;
  const end = bytes.length;
  try {
    while (P < end) {
      if (u28(end) !== ((1 << 3) | 2)) throw OUTSIDE;
      const e = sub(end);
      resourceSpans(v, e);
      P = e;
    }
    return true;
  } catch (err) {
    if (err === OUTSIDE) return false;
    throw err;
  } finally {
    B = EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);
