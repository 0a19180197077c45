/**
 * A direct OTLP `ExportTraceServiceRequest` decoder for the ingest's hot path: the same reader calls in the same
 * order as the generated code (so the same bytes decode to the same values and the same bytes fail), but into plain
 * objects: no message classes, no per-message UTF-8 bookkeeping, no WeakMap of span encodings. It yields the
 * `types.ts` shapes, with only the fields present on the wire set (as the generated code sets them), so a
 * re-encoding gives the generated code's bytes. Unknown fields are skipped exactly as the generated code does.
 */
import { createCheckedReader, OtlpDecodeError, type ProtobufReaderInstance } from './protobuf.ts';
import type {
  AnyValue,
  EntityRef,
  ExportTraceServiceRequest,
  InstrumentationScope,
  KeyValue,
  Resource,
  ResourceSpans,
  ScopeSpans,
  Span,
  SpanEvent,
  SpanLink,
  SpanStatus,
} from './types.ts';

type R = ProtobufReaderInstance;

/** Shared by every message without the repeated field (as the generated code's prototype default): never mutated. */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/** Appends to a repeated field, creating it on its first element (absent repeated fields stay unset). */
/**
 * Every nested message must end exactly at its length, as platform/otlp/protobuf.ts checks the generated decoding
 * (same error): a field running past its message's end is refused, not read from the next field's bytes.
 */
function ended(r: R, end: number): void {
  if (r.pos !== end) throw new RangeError(`a field runs past the end of its message (offset ${end})`);
}

function push<T>(list: T[] | undefined, item: T): T[] {
  if (list === undefined) return [item];
  list.push(item);
  return list;
}

function anyValue(r: R, end: number): AnyValue {
  const m: AnyValue = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.stringValue = cachedString(r);
        break;
      case 2:
        m.boolValue = r.bool();
        break;
      case 3:
        m.intValue = r.int64();
        break;
      case 4:
        m.doubleValue = r.double();
        break;
      case 5: {
        const values: AnyValue[] = [];
        const e = r.uint32() + r.pos;
        while (r.pos < e) {
          const t = r.uint32();
          if (t >>> 3 === 1) values.push(anyValue(r, r.uint32() + r.pos));
          else r.skipType(t & 7);
        }
        ended(r, e);
        m.arrayValue = { values: values.length > 0 ? values : NONE };
        break;
      }
      case 6: {
        const values: KeyValue[] = [];
        const e = r.uint32() + r.pos;
        while (r.pos < e) {
          const t = r.uint32();
          if (t >>> 3 === 1) values.push(keyValue(r, r.uint32() + r.pos));
          else r.skipType(t & 7);
        }
        ended(r, e);
        m.kvlistValue = { values: values.length > 0 ? values : NONE };
        break;
      }
      case 7:
        m.bytesValue = r.bytes();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return m;
}

/**
 * Attribute keys seen before, by length and first and last byte. Keys repeat on every span (a few dozen names), so
 * re-using the string spares a native slice per key, and the string's hash stays cached for the Map lookups
 * downstream (ingest/flatten.ts). Only ASCII keys are kept; at most KEY_CACHE_MAX, then the cache stops growing.
 */
const keyCache = new Map<number, string[]>();
let keyCacheSize = 0;
const KEY_CACHE_MAX = 4096;

function attributeKey(r: R): string {
  const at = r.pos;
  const length = r.uint32();
  const start = r.pos;
  const end = start + length;
  const buf = r.buf;
  if (length > 0 && end <= r.len) {
    const slot = (length << 16) | (buf[start]! << 8) | buf[end - 1]!;
    const known = keyCache.get(slot);
    if (known) {
      for (const k of known) {
        let i = 0;
        while (i < length && k.charCodeAt(i) === buf[start + i]) i++;
        if (i === length) {
          r.pos = end;
          return k;
        }
      }
    }
    // Not cached: the reader decodes it (same bounds check, same UTF-8 rules), then ASCII keys are kept.
    r.pos = at;
    const key = r.string();
    if (keyCacheSize < KEY_CACHE_MAX && key.length === length) {
      if (known) known.push(key);
      else keyCache.set(slot, [key]);
      keyCacheSize++;
    }
    return key;
  }
  r.pos = at;
  return r.string();
}

/**
 * Short string values (attribute values, span and event names) by a hash of their length and three of their
 * bytes, one per slot, replaced on a miss. Tool names, effects, statuses, agent names repeat on every span: the
 * rows of a batch then share one string instead of each holding a copy that the garbage collector must move out
 * of the young generation (rows live until their insert). A hit is byte-compared; like the key cache, only
 * strings whose UTF-16 length equals their byte length are stored, and only ASCII can match bytes.
 */
const VALUE_SLOTS = 4096;
const VALUE_MAX_BYTES = 64;
const valueCache: (string | undefined)[] = new Array(VALUE_SLOTS);

function cachedString(r: R): string {
  const at = r.pos;
  const length = r.uint32();
  const start = r.pos;
  const end = start + length;
  const buf = r.buf;
  if (length === 0 || length > VALUE_MAX_BYTES || end > r.len) {
    r.pos = at;
    return r.string();
  }
  const slot =
    (length * 7919 + buf[start]! * 31 + buf[end - 1]! * 131 + buf[start + (length >> 1)]! * 17) & (VALUE_SLOTS - 1);
  const known = valueCache[slot];
  if (known !== undefined && known.length === length) {
    let i = 0;
    while (i < length && known.charCodeAt(i) === buf[start + i]) i++;
    if (i === length) {
      r.pos = end;
      return known;
    }
  }
  r.pos = at;
  const value = r.string();
  if (value.length === length) valueCache[slot] = value;
  return value;
}

function keyValue(r: R, end: number): KeyValue {
  let key: string | null = null;
  let value: AnyValue | undefined;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        key = attributeKey(r);
        break;
      case 2:
        value = anyValue(r, r.uint32() + r.pos);
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return value === undefined ? { key } : { key, value };
}

function pushKeyValue(r: R, list: KeyValue[] | undefined): KeyValue[] {
  const l = list ?? [];
  l.push(keyValue(r, r.uint32() + r.pos));
  return l;
}

function entityRef(r: R, end: number): EntityRef {
  const m: EntityRef = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.schemaUrl = r.string();
        break;
      case 2:
        m.type = r.string();
        break;
      case 3:
        m.idKeys = push(m.idKeys, r.string());
        break;
      case 4:
        m.descriptionKeys = push(m.descriptionKeys, r.string());
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return m;
}

function resource(r: R, end: number): Resource {
  let attributes: KeyValue[] | undefined;
  const m = {} as Resource;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        attributes = pushKeyValue(r, attributes);
        break;
      case 2:
        m.droppedAttributesCount = r.uint32();
        break;
      case 3:
        m.entityRefs = push(m.entityRefs, entityRef(r, r.uint32() + r.pos));
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  m.attributes = attributes ?? NONE;
  ended(r, end);
  return m;
}

function scope(r: R, end: number): InstrumentationScope {
  const m: InstrumentationScope = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.name = r.string();
        break;
      case 2:
        m.version = r.string();
        break;
      case 3:
        m.attributes = pushKeyValue(r, m.attributes);
        break;
      case 4:
        m.droppedAttributesCount = r.uint32();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return m;
}

function event(r: R, end: number): SpanEvent {
  const m: SpanEvent = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.timeUnixNano = r.fixed64();
        break;
      case 2:
        m.name = cachedString(r);
        break;
      case 3:
        m.attributes = pushKeyValue(r, m.attributes);
        break;
      case 4:
        m.droppedAttributesCount = r.uint32();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return m;
}

function link(r: R, end: number): SpanLink {
  const m: SpanLink = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.traceId = r.bytes();
        break;
      case 2:
        m.spanId = r.bytes();
        break;
      case 3:
        m.traceState = r.string();
        break;
      case 4:
        m.attributes = pushKeyValue(r, m.attributes);
        break;
      case 5:
        m.droppedAttributesCount = r.uint32();
        break;
      case 6:
        m.flags = r.fixed32();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return m;
}

function status(r: R, end: number): SpanStatus {
  const m: SpanStatus = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 2:
        m.message = r.string();
        break;
      case 3:
        m.code = r.int32();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return m;
}

function span(r: R, end: number): Span {
  const m: Span = {};
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.traceId = r.bytes();
        break;
      case 2:
        m.spanId = r.bytes();
        break;
      case 3:
        m.traceState = r.string();
        break;
      case 4:
        m.parentSpanId = r.bytes();
        break;
      case 16:
        m.flags = r.fixed32();
        break;
      case 5:
        m.name = cachedString(r);
        break;
      case 6:
        m.kind = r.int32();
        break;
      case 7:
        m.startTimeUnixNano = r.fixed64();
        break;
      case 8:
        m.endTimeUnixNano = r.fixed64();
        break;
      case 9:
        m.attributes = pushKeyValue(r, m.attributes);
        break;
      case 10:
        m.droppedAttributesCount = r.uint32();
        break;
      case 11:
        m.events = push(m.events, event(r, r.uint32() + r.pos));
        break;
      case 12:
        m.droppedEventsCount = r.uint32();
        break;
      case 13:
        m.links = push(m.links, link(r, r.uint32() + r.pos));
        break;
      case 14:
        m.droppedLinksCount = r.uint32();
        break;
      case 15:
        m.status = status(r, r.uint32() + r.pos);
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  ended(r, end);
  return m;
}

function scopeSpans(r: R, end: number): ScopeSpans {
  let spans: Span[] | undefined;
  const m = {} as ScopeSpans;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.scope = scope(r, r.uint32() + r.pos);
        break;
      case 2:
        spans = push(spans, span(r, r.uint32() + r.pos));
        break;
      case 3:
        m.schemaUrl = r.string();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  m.spans = spans ?? NONE;
  ended(r, end);
  return m;
}

function resourceSpans(r: R, end: number): ResourceSpans {
  let list: ScopeSpans[] | undefined;
  const m = {} as ResourceSpans;
  while (r.pos < end) {
    const tag = r.uint32();
    switch (tag >>> 3) {
      case 1:
        m.resource = resource(r, r.uint32() + r.pos);
        break;
      case 2:
        list = push(list, scopeSpans(r, r.uint32() + r.pos));
        break;
      case 3:
        m.schemaUrl = r.string();
        break;
      default:
        r.skipType(tag & 7);
    }
  }
  m.scopeSpans = list ?? NONE;
  ended(r, end);
  return m;
}

/**
 * Decodes an OTLP protobuf `ExportTraceServiceRequest` into plain objects; throws OtlpDecodeError exactly when
 * `decodeExportTraceServiceRequest` does. Strings that are not valid UTF-8 are decoded the same way (replaced).
 */
export function decodeExportTraceServiceRequestFast(bytes: Uint8Array): ExportTraceServiceRequest {
  const r = createCheckedReader(bytes);
  const list: ResourceSpans[] = [];
  try {
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) list.push(resourceSpans(r, r.uint32() + r.pos));
      else r.skipType(tag & 7);
    }
  } catch (err) {
    throw new OtlpDecodeError(`not a valid ExportTraceServiceRequest: ${(err as Error).message}`);
  }
  return { resourceSpans: list.length > 0 ? list : NONE };
}
