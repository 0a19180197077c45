/**
 * What the OTLP reader (read.ts) recorded of the request it is reading: positions into the request's bytes, never
 * copies. Its consumers (the collector's validation, the ingest's column path) read these views in the reader's
 * callbacks; everything is overwritten by the next part read.
 */

/** Kinds of an attribute value (slot.kind). */
export const V_NONE = 0;
export const V_STRING = 1;
export const V_BOOL = 2;
export const V_INT = 3;
export const V_DOUBLE = 4;
/** An array whose every element is a string AnyValue (or an empty array): its strings are in `strings`. */
export const V_STRINGS = 5;
/** Any other array, a key-value list, bytes: checked in full, recorded by extent only. */
export const V_ARRAY = 6;
export const V_KVLIST = 7;
export const V_BYTES = 8;

/**
 * Top-level key-values (attributes of the resource, scope, span, events, links) as parallel arrays; a part's
 * attributes are a range [from, to) of them. `a`/`b` by kind: string start/length; bool 0/1; int low/high 32 bits
 * (unsigned halves); double position of its 8 bytes; strings the range of `strings`; other arrays, lists, bytes:
 * their extent (length prefix included).
 */
export const slots: {
  count: number;
  key: Int32Array;
  keyLen: Int32Array;
  hash: Int32Array;
  kind: Uint8Array;
  a: Int32Array;
  b: Int32Array;
} = {
  count: 0,
  key: new Int32Array(256),
  keyLen: new Int32Array(256),
  /** A hash of the key's bytes (`keyHash`), computed while its bytes were checked. */
  hash: new Int32Array(256),
  kind: new Uint8Array(256),
  a: new Int32Array(256),
  b: new Int32Array(256),
};

/** The strings of V_STRINGS values: start and length of each. */
export const strings: { count: number; start: Int32Array; len: Int32Array } = {
  count: 0,
  start: new Int32Array(256),
  len: new Int32Array(256),
};

function grown<T extends Int32Array | Uint8Array>(a: T, n: number): T {
  const b = new (a.constructor as new (n: number) => T)(n);
  b.set(a);
  return b;
}

/** A new slot's index (its fields are set by the reader). */
export function newSlot(): number {
  const i = slots.count++;
  if (i === slots.key.length) {
    const n = 2 * i;
    slots.key = grown(slots.key, n);
    slots.keyLen = grown(slots.keyLen, n);
    slots.hash = grown(slots.hash, n);
    slots.kind = grown(slots.kind, n);
    slots.a = grown(slots.a, n);
    slots.b = grown(slots.b, n);
  }
  return i;
}

export function newString(start: number, len: number): void {
  const i = strings.count++;
  if (i === strings.start.length) {
    strings.start = grown(strings.start, 2 * i);
    strings.len = grown(strings.len, 2 * i);
  }
  strings.start[i] = start;
  strings.len[i] = len;
}

/** The hash the reader records for a key (the same for the same bytes; consumers hash their own keys with it). */
export function keyHash(bytes: Uint8Array): number {
  let h = bytes.length;
  for (let i = 0; i < bytes.length; i++) h = (Math.imul(h, 31) + (bytes[i] as number)) | 0;
  return h;
}

/** The ResourceSpans being read: its Resource's extent (at -1: none), schema URL, attribute slots. */
export const resource = { index: -1, from: -1, to: -1, schemaUrl: -1, schemaUrlLen: 0, kvFrom: 0, kvTo: 0 };

/** The ScopeSpans being read: its InstrumentationScope's extent (from -1: none), name, version, attributes. */
export const scope = {
  index: -1,
  from: -1,
  to: -1,
  name: -1,
  nameLen: 0,
  version: -1,
  versionLen: 0,
  schemaUrl: -1,
  schemaUrlLen: 0,
  kvFrom: 0,
  kvTo: 0,
};

/**
 * The span being read. `tagAt` is where its field's tag starts in the ScopeSpans, `from`/`to` its encoding; every
 * other position is -1 when the field is absent. Its attributes are slots [attrFrom, attrTo); its events' and
 * links' follow.
 */
export const span = {
  tagAt: 0,
  from: 0,
  to: 0,
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
  /** The kind's one byte (0 when absent). */
  kind: 0,
  /** Positions of the two fixed64 times. */
  start: -1,
  end: -1,
  status: -1,
  statusMessage: -1,
  statusMessageLen: 0,
  statusCode: 0,
  attrFrom: 0,
  attrTo: 0,
};

export interface EventView {
  time: number;
  name: number;
  nameLen: number;
  kvFrom: number;
  kvTo: number;
}

export interface LinkView {
  traceId: number;
  traceIdLen: number;
  spanId: number;
  spanIdLen: number;
  state: number;
  stateLen: number;
  kvFrom: number;
  kvTo: number;
}

/** The current span's events and links: the first `count` of `list`. */
export const events = { count: 0, list: [] as EventView[] };
export const links = { count: 0, list: [] as LinkView[] };
