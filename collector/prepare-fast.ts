/**
 * The fast path of `prepareMessages` for protobuf bodies in which every span is valid (nearly every request): the
 * body is scanned in place, each span checked against the validation rules on its bytes, and the per-trace
 * messages assembled by copying byte ranges, without decoding spans into objects (decoding was half the
 * collector's CPU). Only resources and scopes are decoded (once each, by the generated code), to validate and
 * stamp the tenant as `prepare` does.
 *
 * It accepts a strict subset of the wire format: known fields with their expected wire types, each nested message
 * ending exactly at its length, singular fields at most once, short varints. On that subset the generated
 * decoding reads the same values, so the result is byte for byte what `prepare` + `splitByTrace` produce (a
 * differential test holds it to that). Anything else, including any span that breaks a rule, is flagged (a malformed
 * contract attribute, a tool call recognised only by what it carries) or carries a `tooltrail.tenant` attribute,
 * returns undefined and the caller takes the general path, which then decides
 * (refusal, partial success) exactly as before.
 */
import { isUtf8 } from 'node:buffer';
import {
  ATTRIBUTE_TYPES,
  Attr,
  type AttrName,
  type AttrValueType,
  ENUM_VALUES,
  EXECUTE_TOOL,
  GenAi,
  marksToolSpan,
} from '../contract/index.ts';
import {
  decodeInstrumentationScopeAt,
  decodeResourceAt,
  encodeInstrumentationScope,
  encodeResource,
  MAX_ANY_VALUE_DEPTH,
  type Resource,
  type ResourceSpans,
} from '../platform/otlp/index.ts';
import { fieldSize, varintSize, writeVarint } from '../platform/otlp/wire.ts';
import type { PreparedMessages } from './prepare.ts';
import type { TraceMessage } from './split-by-trace.ts';
import { attributeProblem, stampTenant } from './validate.ts';

/** Thrown (one preallocated value: no stack is captured) when the body leaves the subset this path handles. */
const FALLBACK = Object.freeze({ fallback: true });

const WT_VARINT = 0;
const WT_I64 = 1;
const WT_LEN = 2;
const WT_I32 = 5;

/** `tooltrail.` as bytes, to test attribute keys without making strings of them. */
const PREFIX = Buffer.from('tooltrail.', 'latin1');
const PREFIX_LENGTH = PREFIX.length;

/** The contract's `tooltrail.*` attributes as bytes: keys and enum values are compared in place, never decoded. */
interface ContractRule {
  key: string;
  bytes: Buffer;
  type: AttrValueType;
  allowed: Buffer[] | undefined;
  /** Its presence makes a span a tool call (contract/attribute-values.ts `marksToolSpan`). */
  marksTool: boolean;
}
const RULES: ContractRule[] = Object.entries(ATTRIBUTE_TYPES).map(([key, type]) => ({
  key,
  bytes: Buffer.from(key, 'utf8'),
  type,
  allowed: ENUM_VALUES[key as AttrName]?.map((v) => Buffer.from(v, 'utf8')),
  marksTool: marksToolSpan(key),
}));

/** The keys and value that decide whether a span is a tool call (contract/attribute-values.ts). */
const K_OPERATION = Buffer.from(GenAi.OPERATION_NAME, 'utf8');
const K_TOOL_NAME = Buffer.from(GenAi.TOOL_NAME, 'utf8');
const V_EXECUTE_TOOL = Buffer.from(EXECUTE_TOOL, 'utf8');
// What the current span's attributes said: an operation name (execute_tool or not), a tool name, a contract key.
let sawOperation = false;
let sawExecuteTool = false;
let sawToolName = false;
let sawContract = false;
/** The rules by key length in bytes (a few per length). */
const RULES_BY_LENGTH: ContractRule[][] = [];
for (const rule of RULES) {
  const list = RULES_BY_LENGTH[rule.bytes.length] ?? [];
  list.push(rule);
  RULES_BY_LENGTH[rule.bytes.length] = list;
}

function allowedValue(allowed: Buffer[], start: number, end: number): boolean {
  for (let i = 0; i < allowed.length; i++) if (equalsBytes(allowed[i] as Buffer, start, end)) return true;
  return false;
}

/** AnyValue fields (bit = 1 << field number). */
const F_STRING = 1 << 1;
const F_BOOL = 1 << 2;
const F_INT = 1 << 3;
const F_ARRAY = 1 << 5;

let buf: Buffer;
let pos = 0;

/** A tag or a length: varints of at most 4 bytes (< 2^28), which protobufjs' uint32 reads exactly. */
function u28(end: number): number {
  let v = 0;
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) throw FALLBACK;
    const c = buf[pos++] as number;
    v |= (c & 0x7f) << shift;
    if (c < 0x80) return v;
  }
  throw FALLBACK;
}

/** A uint32/bool varint whose value does not matter: at most 5 bytes, as protobufjs' uint32 consumes them. */
function skipVarint32(end: number): void {
  for (let i = 0; i < 5; i++) {
    if (pos >= end) throw FALLBACK;
    if ((buf[pos++] as number) < 0x80) return;
  }
  throw FALLBACK;
}

/** An int64 varint: at most 10 bytes (protobufjs refuses longer ones). */
function skipVarint64(end: number): void {
  for (let i = 0; i < 10; i++) {
    if (pos >= end) throw FALLBACK;
    if ((buf[pos++] as number) < 0x80) return;
  }
  throw FALLBACK;
}

/** A small enum (kind, status code): one byte holding 0..max. */
function smallEnum(end: number, max: number): number {
  if (pos >= end) throw FALLBACK;
  const c = buf[pos++] as number;
  if (c > max) throw FALLBACK;
  return c;
}

/** A length-delimited field's end, checked against the enclosing message's end. */
function lenEnd(end: number): number {
  const n = u28(end);
  const e = pos + n;
  if (e > end) throw FALLBACK;
  return e;
}

/** Where the content of the last string `str` read starts (it ends at `pos`). */
let strStart = 0;

/** A string field: in bounds and valid UTF-8 (ASCII, nearly every telemetry string, needs no further check). */
function str(end: number): void {
  const e = lenEnd(end);
  const start = pos;
  const b = buf;
  strStart = start;
  pos = e;
  // OR-ing the bytes (no branch per byte) then testing the high bit: ASCII strings, nearly all, stop here.
  let bits = 0;
  for (let i = start; i < e; i++) bits |= b[i] as number;
  if (bits > 0x7f && !isUtf8(b.subarray(start, e))) throw FALLBACK;
}

function fixed(end: number, n: number): void {
  if (pos + n > end) throw FALLBACK;
  pos += n;
}

function equalsBytes(bytes: Buffer, start: number, end: number): boolean {
  const n = bytes.length;
  if (end - start !== n) return false;
  const b = buf;
  for (let i = 0; i < n; i++) if (b[start + i] !== bytes[i]) return false;
  return true;
}

function hasPrefix(start: number, end: number): boolean {
  const b = buf;
  if (end - start < PREFIX_LENGTH || b[start] !== PREFIX[0]) return false;
  for (let i = 1; i < PREFIX_LENGTH; i++) if (b[start + i] !== PREFIX[i]) return false;
  return true;
}

function contractRule(start: number, end: number): ContractRule | undefined {
  const candidates = RULES_BY_LENGTH[end - start];
  if (candidates === undefined) return undefined;
  const b = buf;
  // The `tooltrail.` prefix was checked: compare the rest.
  next: for (let i = 0; i < candidates.length; i++) {
    const rule = candidates[i] as ContractRule;
    const bytes = rule.bytes;
    for (let j = PREFIX_LENGTH; j < bytes.length; j++) if (b[start + j] !== bytes[j]) continue next;
    return rule;
  }
  return undefined;
}

function sameId(a: number, b: number): boolean {
  for (let i = 0; i < 16; i++) if (buf[a + i] !== buf[b + i]) return false;
  return true;
}

function isZero(start: number, n: number): boolean {
  for (let i = start; i < start + n; i++) if (buf[i] !== 0) return false;
  return true;
}

/** Unsigned little-endian fixed64 at `at` compared as (high, low) 32-bit halves. */
const hi32 = (at: number) => buf.readUInt32LE(at + 4);
const lo32 = (at: number) => buf.readUInt32LE(at);

// What the last scanned AnyValue held (its fields as bits, its string, whether every array element has a string).
let valueFields = 0;
let valueStringStart = 0;
let valueStringEnd = 0;
let valueAllStrings = true;

/** Scans an AnyValue at nesting `level` (1 for an attribute's value): UTF-8 strings, depth within the bound. */
function anyValue(end: number, level: number): void {
  if (level > MAX_ANY_VALUE_DEPTH) throw FALLBACK;
  let fields = 0;
  let sStart = 0;
  let sEnd = 0;
  let allStrings = true;
  while (pos < end) {
    const tag = u28(end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field < 1 || field > 7 || fields & (1 << field)) throw FALLBACK;
    fields |= 1 << field;
    switch (field) {
      case 1:
        if (wt !== WT_LEN) throw FALLBACK;
        str(end);
        sStart = strStart;
        sEnd = pos;
        break;
      case 2:
        if (wt !== WT_VARINT) throw FALLBACK;
        skipVarint32(end);
        break;
      case 3:
        if (wt !== WT_VARINT) throw FALLBACK;
        skipVarint64(end);
        break;
      case 4:
        if (wt !== WT_I64) throw FALLBACK;
        fixed(end, 8);
        break;
      case 5: {
        // ArrayValue { repeated AnyValue values = 1 }
        if (wt !== WT_LEN) throw FALLBACK;
        const e = lenEnd(end);
        while (pos < e) {
          if (u28(e) !== ((1 << 3) | WT_LEN)) throw FALLBACK;
          const ve = lenEnd(e);
          anyValue(ve, level + 1);
          if (pos !== ve) throw FALLBACK;
          if (!(valueFields & F_STRING)) allStrings = false;
        }
        break;
      }
      case 6: {
        // KeyValueList { repeated KeyValue values = 1 }
        if (wt !== WT_LEN) throw FALLBACK;
        const e = lenEnd(end);
        while (pos < e) {
          if (u28(e) !== ((1 << 3) | WT_LEN)) throw FALLBACK;
          const ke = lenEnd(e);
          keyValue(ke, level + 1, false, false);
        }
        break;
      }
      case 7:
        if (wt !== WT_LEN) throw FALLBACK;
        pos = lenEnd(end);
        break;
    }
  }
  if (pos !== end) throw FALLBACK;
  valueFields = fields;
  valueStringStart = sStart;
  valueStringEnd = sEnd;
  valueAllStrings = allStrings;
}

function matches(type: AttrValueType): boolean {
  switch (type) {
    case 'string':
      return valueFields === F_STRING;
    case 'bool':
      return valueFields === F_BOOL;
    case 'int':
      return valueFields === F_INT;
    case 'string[]':
      return valueFields === F_ARRAY && valueAllStrings;
  }
}

/**
 * Scans a KeyValue. `attribute`: a top-level attribute (non-empty key); `contract`: a span attribute, whose
 * `tooltrail.*` keys must have their contract type and values (a span-level tenant claim takes the general path,
 * which removes it). A nested value's `level` is its AnyValue's nesting.
 */
function keyValue(end: number, level: number, attribute: boolean, contract: boolean): void {
  let keyStart = -1;
  let keyEnd = -1;
  let hasValue = false;
  while (pos < end) {
    const tag = u28(end);
    if (tag === ((1 << 3) | WT_LEN) && keyStart < 0) {
      str(end);
      keyStart = strStart;
      keyEnd = pos;
    } else if (tag === ((2 << 3) | WT_LEN) && !hasValue) {
      hasValue = true;
      anyValue(lenEnd(end), level);
    } else {
      throw FALLBACK;
    }
  }
  if (pos !== end) throw FALLBACK;
  if (!attribute) return;
  if (keyStart < 0 || keyEnd === keyStart) throw FALLBACK;
  if (!contract) return;
  if (!hasPrefix(keyStart, keyEnd)) {
    if (equalsBytes(K_OPERATION, keyStart, keyEnd)) {
      sawOperation = true;
      if (hasValue && valueFields === F_STRING && equalsBytes(V_EXECUTE_TOOL, valueStringStart, valueStringEnd)) {
        sawExecuteTool = true;
      }
    } else if (equalsBytes(K_TOOL_NAME, keyStart, keyEnd)) sawToolName = true;
    return;
  }
  const rule = contractRule(keyStart, keyEnd);
  if (rule === undefined) return; // a newer emitter's attribute: kept, not judged
  // A malformed value is flagged, a span-level tenant claim removed: both by the general path.
  if (rule.key === Attr.TENANT || !hasValue || !matches(rule.type)) throw FALLBACK;
  if (rule.allowed && !allowedValue(rule.allowed, valueStringStart, valueStringEnd)) throw FALLBACK;
  if (rule.marksTool) sawContract = true;
}

/** Span.Event: time, name, attributes, dropped count. */
function event(end: number): void {
  let seen = 0;
  while (pos < end) {
    const tag = u28(end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field !== 3) {
      if (field < 1 || field > 4 || seen & (1 << field)) throw FALLBACK;
      seen |= 1 << field;
    }
    if (field === 1 && wt === WT_I64) fixed(end, 8);
    else if (field === 2 && wt === WT_LEN) str(end);
    else if (field === 3 && wt === WT_LEN) keyValue(lenEnd(end), 1, true, false);
    else if (field === 4 && wt === WT_VARINT) skipVarint32(end);
    else throw FALLBACK;
  }
  if (pos !== end) throw FALLBACK;
}

/** Span.Link: a 16-byte trace id and an 8-byte span id, trace state, attributes, dropped count, flags. */
function link(end: number): void {
  let seen = 0;
  while (pos < end) {
    const tag = u28(end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field !== 4) {
      if (field < 1 || field > 6 || seen & (1 << field)) throw FALLBACK;
      seen |= 1 << field;
    }
    if (field === 1 && wt === WT_LEN) {
      const e = lenEnd(end);
      if (e - pos !== 16) throw FALLBACK;
      pos = e;
    } else if (field === 2 && wt === WT_LEN) {
      const e = lenEnd(end);
      if (e - pos !== 8) throw FALLBACK;
      pos = e;
    } else if (field === 3 && wt === WT_LEN) str(end);
    else if (field === 4 && wt === WT_LEN) keyValue(lenEnd(end), 1, true, false);
    else if (field === 5 && wt === WT_VARINT) skipVarint32(end);
    else if (field === 6 && wt === WT_I32) fixed(end, 4);
    else throw FALLBACK;
  }
  if (pos !== end) throw FALLBACK;
  if ((seen & 0b110) !== 0b110) throw FALLBACK;
}

/** Span.Status: message, code (0-2). */
function status(end: number): void {
  let seen = 0;
  while (pos < end) {
    const tag = u28(end);
    const field = tag >>> 3;
    if (seen & (1 << field)) throw FALLBACK;
    seen |= 1 << field;
    if (tag === ((2 << 3) | WT_LEN)) str(end);
    else if (tag === ((3 << 3) | WT_VARINT)) smallEnum(end, 2);
    else throw FALLBACK;
  }
  if (pos !== end) throw FALLBACK;
}

/** Scans one valid span; returns the offset of its 16-byte trace id. */
function span(end: number): number {
  let seen = 0;
  let traceAt = -1;
  let startAt = -1;
  let endAt = -1;
  sawOperation = false;
  sawExecuteTool = false;
  sawToolName = false;
  sawContract = false;
  while (pos < end) {
    const tag = u28(end);
    const field = tag >>> 3;
    const wt = tag & 7;
    if (field !== 9 && field !== 11 && field !== 13) {
      if (field < 1 || field > 16 || seen & (1 << field)) throw FALLBACK;
      seen |= 1 << field;
    }
    switch (field) {
      case 1: {
        if (wt !== WT_LEN) throw FALLBACK;
        const e = lenEnd(end);
        if (e - pos !== 16 || isZero(pos, 16)) throw FALLBACK;
        traceAt = pos;
        pos = e;
        break;
      }
      case 2: {
        if (wt !== WT_LEN) throw FALLBACK;
        const e = lenEnd(end);
        if (e - pos !== 8 || isZero(pos, 8)) throw FALLBACK;
        pos = e;
        break;
      }
      case 4: {
        if (wt !== WT_LEN) throw FALLBACK;
        const e = lenEnd(end);
        if (e - pos !== 0 && e - pos !== 8) throw FALLBACK;
        pos = e;
        break;
      }
      case 3:
      case 5:
        if (wt !== WT_LEN) throw FALLBACK;
        str(end);
        break;
      case 6:
        if (wt !== WT_VARINT) throw FALLBACK;
        smallEnum(end, 5);
        break;
      case 7:
      case 8:
        if (wt !== WT_I64) throw FALLBACK;
        if (field === 7) startAt = pos;
        else endAt = pos;
        fixed(end, 8);
        break;
      case 9:
        if (wt !== WT_LEN) throw FALLBACK;
        keyValue(lenEnd(end), 1, true, true);
        break;
      case 11:
        if (wt !== WT_LEN) throw FALLBACK;
        event(lenEnd(end));
        break;
      case 13:
        if (wt !== WT_LEN) throw FALLBACK;
        link(lenEnd(end));
        break;
      case 10:
      case 12:
      case 14:
        if (wt !== WT_VARINT) throw FALLBACK;
        skipVarint32(end);
        break;
      case 15:
        if (wt !== WT_LEN) throw FALLBACK;
        status(lenEnd(end));
        break;
      case 16:
        if (wt !== WT_I32) throw FALLBACK;
        fixed(end, 4);
        break;
    }
  }
  if (pos !== end || traceAt < 0 || !(seen & (1 << 2)) || startAt < 0 || endAt < 0) throw FALLBACK;
  // A tool call only by what it carries is flagged: the general path.
  if (!sawExecuteTool && (sawContract || (sawToolName && !sawOperation))) throw FALLBACK;
  const sh = hi32(startAt);
  const sl = lo32(startAt);
  const eh = hi32(endAt);
  const el = lo32(endAt);
  if ((sh === 0 && sl === 0) || (eh === 0 && el === 0)) throw FALLBACK;
  if (eh < sh || (eh === sh && el < sl)) throw FALLBACK;
  return traceAt;
}

// ---------------------------------------------------------------------------------------------- assembly

/**
 * Per span (request order): where its field starts when its tag and length are canonical (else -1), its
 * encoding's range, its scope, the next span of its trace.
 */
let spanTag: Int32Array = new Int32Array(1024);
let spanStart: Int32Array = new Int32Array(1024);
let spanEnd: Int32Array = new Int32Array(1024);
let spanScope: Int32Array = new Int32Array(1024);
let spanNext: Int32Array = new Int32Array(1024);

function grow(a: Int32Array, n: number): Int32Array {
  if (n < a.length) return a;
  const b = new Int32Array(Math.max(n + 1, a.length * 2));
  b.set(a);
  return b;
}

interface ScopeInfo {
  resource: number;
  scope: Uint8Array | undefined;
  urlStart: number;
  urlEnd: number;
}

interface ResourceInfo {
  rs: ResourceSpans;
  bytes: Uint8Array | undefined;
  urlStart: number;
  urlEnd: number;
  spans: number;
}

interface Trace {
  key: string;
  /** Where its trace id is in the body. */
  at: number;
  head: number;
  tail: number;
  spans: number;
  /** Set by sizeTrace: the sizes of its scope and resource runs, and of its message. */
  sizes: number[];
  size: number;
}

/** Sizes of one trace's runs of spans sharing a scope and a resource, and of its whole message (pass 1). */
function sizeTrace(trace: Trace, scopes: ScopeInfo[], resources: ResourceInfo[]): void {
  let total = 0;
  let s = trace.head;
  while (s >= 0) {
    const r = (scopes[spanScope[s] as number] as ScopeInfo).resource;
    const ri = resources[r] as ResourceInfo;
    let rsize =
      fieldSize((ri.bytes as Uint8Array).length) + (ri.urlEnd > ri.urlStart ? fieldSize(ri.urlEnd - ri.urlStart) : 0);
    while (s >= 0 && (scopes[spanScope[s] as number] as ScopeInfo).resource === r) {
      const sc = spanScope[s] as number;
      const si = scopes[sc] as ScopeInfo;
      let ssize =
        (si.scope ? fieldSize(si.scope.length) : 0) +
        (si.urlEnd > si.urlStart ? fieldSize(si.urlEnd - si.urlStart) : 0);
      while (s >= 0 && spanScope[s] === sc) {
        ssize += fieldSize((spanEnd[s] as number) - (spanStart[s] as number));
        s = spanNext[s] as number;
      }
      trace.sizes.push(ssize);
      rsize += fieldSize(ssize);
    }
    trace.sizes.push(rsize);
    total += fieldSize(rsize);
  }
  trace.size = total;
}

let out: Buffer = Buffer.alloc(0);
let at = 0;

function put(tag: number, bytes: Uint8Array): void {
  out[at++] = tag;
  at = writeVarint(out, at, bytes.length);
  out.set(bytes, at);
  at += bytes.length;
}

function putRange(tag: number, start: number, end: number): void {
  out[at++] = tag;
  at = writeVarint(out, at, end - start);
  at += buf.copy(out, at, start, end);
}

/**
 * Writes one trace's ExportTraceServiceRequest at `at` in `out`, laid out as TraceRequestAssembler lays it out
 * (platform/otlp/assemble.ts). Spans that follow each other in the body, each with its canonical tag and length
 * (as the assembler writes them), are copied together with their tags in one copy.
 */
function writeTrace(trace: Trace, scopes: ScopeInfo[], resources: ResourceInfo[]): void {
  const start = at;
  // Pass 1 pushed, per resource run, its scope runs' sizes and then its own: find each resource's size first.
  const sizes = trace.sizes;
  let k = 0;
  let s = trace.head;
  while (s >= 0) {
    const r = (scopes[spanScope[s] as number] as ScopeInfo).resource;
    const res = resources[r] as ResourceInfo;
    // This resource run's scope sizes are sizes[k .. j), its own size sizes[j].
    let j = k;
    let probe = s;
    while (probe >= 0 && (scopes[spanScope[probe] as number] as ScopeInfo).resource === r) {
      const sc = spanScope[probe] as number;
      while (probe >= 0 && spanScope[probe] === sc) probe = spanNext[probe] as number;
      j++;
    }
    out[at++] = 0x0a;
    at = writeVarint(out, at, sizes[j] as number);
    put(0x0a, res.bytes as Uint8Array);
    while (s >= 0 && (scopes[spanScope[s] as number] as ScopeInfo).resource === r) {
      const sc = spanScope[s] as number;
      const sinfo = scopes[sc] as ScopeInfo;
      out[at++] = 0x12;
      at = writeVarint(out, at, sizes[k++] as number);
      if (sinfo.scope) put(0x0a, sinfo.scope);
      while (s >= 0 && spanScope[s] === sc) {
        const runFrom = spanTag[s] as number;
        if (runFrom < 0) {
          putRange(0x12, spanStart[s] as number, spanEnd[s] as number);
          s = spanNext[s] as number;
          continue;
        }
        let runTo = spanEnd[s] as number;
        s = spanNext[s] as number;
        while (s >= 0 && spanScope[s] === sc && spanTag[s] === runTo) {
          runTo = spanEnd[s] as number;
          s = spanNext[s] as number;
        }
        at += buf.copy(out, at, runFrom, runTo);
      }
      if (sinfo.urlEnd > sinfo.urlStart) putRange(0x1a, sinfo.urlStart, sinfo.urlEnd);
    }
    k = j + 1;
    if (res.urlEnd > res.urlStart) putRange(0x1a, res.urlStart, res.urlEnd);
  }
  if (at - start !== trace.size) throw new Error(`prepare-fast: assembled ${at - start} of ${trace.size} bytes`);
}

// ---------------------------------------------------------------------------------------------- request

/**
 * Prepares a protobuf body whose spans are all valid: the same result as `prepareMessages(body, 'protobuf',
 * tenant)`, or undefined when the general path must decide.
 */
export function prepareProtobufFast(body: Buffer, tenant: string): PreparedMessages | undefined {
  try {
    return scanRequest(body, tenant);
  } catch (err) {
    if (err === FALLBACK) return undefined;
    // The generated decoding of a resource or scope threw: the general path refuses the body as it always did.
    if (err instanceof Error) return undefined;
    throw err;
  } finally {
    buf = EMPTY;
    out = EMPTY;
  }
}

const EMPTY = Buffer.alloc(0);

function scanRequest(body: Buffer, tenant: string): PreparedMessages | undefined {
  buf = body;
  pos = 0;
  const end = body.length;
  const scopes: ScopeInfo[] = [];
  const resources: ResourceInfo[] = [];
  const traces: Trace[] = [];
  const byKey = new Map<string, Trace>();
  let spans = 0;
  let last: Trace | undefined;
  while (pos < end) {
    if (u28(end) !== ((1 << 3) | WT_LEN)) throw FALLBACK;
    const rsEnd = lenEnd(end);
    const r = resources.length;
    const ri: ResourceInfo = {
      rs: { resource: null, schemaUrl: null, scopeSpans: [] },
      bytes: undefined,
      urlStart: 0,
      urlEnd: 0,
      spans: 0,
    };
    resources.push(ri);
    let rsSeen = 0;
    while (pos < rsEnd) {
      const tag = u28(rsEnd);
      if (tag === ((1 << 3) | WT_LEN)) {
        if (rsSeen & 2) throw FALLBACK;
        rsSeen |= 2;
        const e = lenEnd(rsEnd);
        const part = decodeResourceAt(body, pos, e);
        if (!part.exact || part.invalidUtf8 > 0) throw FALLBACK;
        if (attributeProblem(part.message.attributes, 'resource')) throw FALLBACK;
        ri.rs.resource = part.message;
        pos = e;
      } else if (tag === ((3 << 3) | WT_LEN)) {
        if (rsSeen & 8) throw FALLBACK;
        rsSeen |= 8;
        str(rsEnd);
        ri.urlStart = strStart;
        ri.urlEnd = pos;
      } else if (tag === ((2 << 3) | WT_LEN)) {
        const ssEnd = lenEnd(rsEnd);
        const sc = scopes.length;
        const si: ScopeInfo = { resource: r, scope: undefined, urlStart: 0, urlEnd: 0 };
        scopes.push(si);
        let ssSeen = 0;
        while (pos < ssEnd) {
          const tagAt = pos;
          const t = u28(ssEnd);
          if (t === ((1 << 3) | WT_LEN)) {
            if (ssSeen & 2) throw FALLBACK;
            ssSeen |= 2;
            const e = lenEnd(ssEnd);
            const part = decodeInstrumentationScopeAt(body, pos, e);
            if (!part.exact || part.invalidUtf8 > 0) throw FALLBACK;
            if (attributeProblem(part.message.attributes ?? undefined, 'scope')) throw FALLBACK;
            si.scope = encodeInstrumentationScope(part.message);
            pos = e;
          } else if (t === ((3 << 3) | WT_LEN)) {
            if (ssSeen & 8) throw FALLBACK;
            ssSeen |= 8;
            str(ssEnd);
            si.urlStart = strStart;
            si.urlEnd = pos;
          } else if (t === ((2 << 3) | WT_LEN)) {
            const e = lenEnd(ssEnd);
            const start = pos;
            const traceAt = span(e);
            const n = spans++;
            if (n >= spanStart.length) {
              spanTag = grow(spanTag, n);
              spanStart = grow(spanStart, n);
              spanEnd = grow(spanEnd, n);
              spanScope = grow(spanScope, n);
              spanNext = grow(spanNext, n);
            }
            spanTag[n] = body[tagAt] === 0x12 && start - tagAt === 1 + varintSize(e - start) ? tagAt : -1;
            spanStart[n] = start;
            spanEnd[n] = e;
            spanScope[n] = sc;
            spanNext[n] = -1;
            ri.spans++;
            // Spans of one trace usually come together: compare with the previous span's trace id first.
            let trace = last !== undefined && sameId(last.at, traceAt) ? last : undefined;
            if (!trace) {
              const key = body.toString('hex', traceAt, traceAt + 16);
              trace = byKey.get(key);
              if (!trace) {
                trace = { key, at: traceAt, head: n, tail: n, spans: 0, sizes: [], size: 0 };
                byKey.set(key, trace);
                traces.push(trace);
              } else {
                spanNext[trace.tail] = n;
                trace.tail = n;
              }
            } else {
              spanNext[trace.tail] = n;
              trace.tail = n;
            }
            trace.spans++;
            last = trace;
          } else {
            throw FALLBACK;
          }
        }
        if (pos !== ssEnd) throw FALLBACK;
      } else {
        throw FALLBACK;
      }
    }
    if (pos !== rsEnd) throw FALLBACK;
  }
  if (spans === 0) return undefined;
  // Tenant: stamped on every resource that has spans, as stampTenant does on the validated request.
  const withSpans = resources.filter((ri) => ri.spans > 0);
  const tenantOverrides = stampTenant({ resourceSpans: withSpans.map((ri) => ri.rs) }, tenant);
  for (const ri of withSpans) ri.bytes = encodeResource(ri.rs.resource as Resource); // stampTenant set it
  // One buffer for all the request's messages (one allocation, not one per trace), each message a view of it.
  let total = 0;
  for (const t of traces) {
    sizeTrace(t, scopes, resources);
    total += t.size;
  }
  out = Buffer.allocUnsafe(total);
  at = 0;
  const messages: TraceMessage[] = [];
  for (const t of traces) {
    const from = at;
    writeTrace(t, scopes, resources);
    messages.push({ key: t.key, value: out.subarray(from, at), spanCount: t.spans });
  }
  out = EMPTY;
  return {
    accepted: spans,
    rejected: 0,
    byReason: [],
    flagged: 0,
    flagsByReason: [],
    samples: [],
    errorMessage: '',
    tenantOverrides,
    messages,
  };
}
