/**
 * Generators of OTLP/HTTP requests for the collector: valid ExportTraceServiceRequests (as OTLP/JSON, and the same
 * encoded as protobuf), structure-aware mutations of them (a field of the wrong type, out of range, missing,
 * duplicated; ids of the wrong length; deep AnyValues), byte-level mutations of the encoded body, random bytes,
 * compression that lies, content types and credentials that are wrong.
 */
import { deflateSync, gzipSync } from 'node:zlib';
import { encodeExportTraceServiceRequest, exportTraceServiceRequestFromJson } from '../platform/otlp/index.ts';
import type { Rng } from './rng.ts';

export type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

export interface OtlpCase {
  /** What the case is, for the report. */
  label: string;
  headers: Record<string, string>;
  body: Buffer;
  /** Spans the body carries when it is a well-formed request of its content type (the no-loss check), else undefined. */
  spans?: number;
}

const ATTR_KEYS = [
  'gen_ai.tool.name',
  'gen_ai.operation.name',
  'gen_ai.conversation.id',
  'tooltrail.result.complete',
  'tooltrail.result.item_count',
  'tooltrail.effect',
  'tooltrail.tenant',
  'service.name',
  '',
];

function anyValue(rng: Rng, depth = 0): Json {
  const k = rng.int(0, depth > 2 ? 4 : 6);
  switch (k) {
    case 0:
      return { stringValue: rng.string(16) };
    case 1:
      return { boolValue: rng.bool() };
    case 2:
      return { intValue: String(rng.int(-1e9, 1e9)) };
    case 3:
      return { doubleValue: rng.next() * 1e6 };
    case 4:
      return { bytesValue: rng.bytes(rng.int(0, 8)).toString('base64') };
    case 5:
      return { arrayValue: { values: Array.from({ length: rng.int(0, 3) }, () => anyValue(rng, depth + 1)) } };
    default:
      return {
        kvlistValue: {
          values: Array.from({ length: rng.int(0, 3) }, () => ({
            key: rng.string(8),
            value: anyValue(rng, depth + 1),
          })),
        },
      };
  }
}

function attributes(rng: Rng): Json[] {
  return Array.from({ length: rng.int(0, 5) }, () => ({
    key: rng.bool(0.7) ? rng.pick(ATTR_KEYS) : rng.string(12),
    value: anyValue(rng),
  }));
}

function span(rng: Rng): Json {
  const start = 1_700_000_000_000_000_000n + BigInt(rng.int(0, 1e9)) * 1_000n;
  const s: { [k: string]: Json } = {
    traceId: rng.hex(16),
    spanId: rng.hex(8),
    name: rng.string(20),
    kind: rng.int(0, 5),
    startTimeUnixNano: start.toString(),
    endTimeUnixNano: (start + BigInt(rng.int(0, 1e9))).toString(),
    attributes: attributes(rng),
  };
  if (rng.bool(0.3)) s.parentSpanId = rng.hex(8);
  if (rng.bool(0.2)) s.status = { code: rng.int(0, 2), message: rng.string(10) };
  if (rng.bool(0.2)) s.events = [{ timeUnixNano: start.toString(), name: rng.string(8), attributes: attributes(rng) }];
  if (rng.bool(0.1)) s.links = [{ traceId: rng.hex(16), spanId: rng.hex(8), attributes: attributes(rng) }];
  return s;
}

/** A valid OTLP/JSON ExportTraceServiceRequest. */
export function validRequestJson(rng: Rng): { [k: string]: Json } {
  return {
    resourceSpans: Array.from({ length: rng.int(1, 3) }, () => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: rng.string(10) } }, ...attributes(rng)] },
      scopeSpans: Array.from({ length: rng.int(1, 2) }, () => ({
        scope: { name: rng.string(8), version: '1.0.0' },
        spans: Array.from({ length: rng.int(0, 6) }, () => span(rng)),
      })),
    })),
  };
}

/** Spans in an OTLP/JSON document, counting only where the structure is the expected arrays. */
export function jsonSpanCount(doc: unknown): number | undefined {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const rs = (doc as { resourceSpans?: unknown }).resourceSpans;
  if (rs === undefined) return 0;
  if (!Array.isArray(rs)) return undefined;
  let n = 0;
  for (const r of rs) {
    if (r === null) continue;
    if (typeof r !== 'object') return undefined;
    const ss = (r as { scopeSpans?: unknown }).scopeSpans;
    if (ss === undefined || ss === null) continue;
    if (!Array.isArray(ss)) return undefined;
    for (const s of ss) {
      if (s === null) continue;
      if (typeof s !== 'object') return undefined;
      const spans = (s as { spans?: unknown }).spans;
      if (spans === undefined || spans === null) continue;
      if (!Array.isArray(spans)) return undefined;
      n += spans.length;
    }
  }
  return n;
}

/** A value of the wrong shape for wherever it lands. */
function wrongValue(rng: Rng): Json {
  return rng.pick<() => Json>([
    () => null,
    () => true,
    () => -1,
    () => 0,
    () => 2 ** 64,
    () => -(2 ** 63),
    () => 1.5,
    () => '',
    () => rng.string(40),
    () => 'NaN',
    () => '18446744073709551616',
    () => '-9223372036854775809',
    () => rng.hex(rng.int(0, 40)),
    () => 'SPAN_KIND_SERVER',
    () => [],
    () => [null],
    () => ({}),
    () => ({ stringValue: 1 }),
    () => ({ intValue: 'x' }),
    () => ({ arrayValue: null }),
    () => ({ kvlistValue: { values: [{ key: null }] } }),
    () => 'x'.repeat(rng.int(1000, 70_000)),
    () => deepAnyValue(rng.int(30, 400)),
  ])();
}

/** An AnyValue nested `depth` arrays deep (the converter bounds the depth). */
export function deepAnyValue(depth: number): Json {
  let v: Json = { stringValue: 'leaf' };
  for (let i = 0; i < depth; i++) v = { arrayValue: { values: [v] } };
  return v;
}

type Slot = { parent: Json[] | { [k: string]: Json }; key: string | number };

function slots(doc: Json, out: Slot[] = []): Slot[] {
  if (Array.isArray(doc)) {
    doc.forEach((v, i) => {
      out.push({ parent: doc, key: i });
      slots(v, out);
    });
  } else if (doc && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) {
      out.push({ parent: doc, key: k });
      slots(v, out);
    }
  }
  return out;
}

/** One to three structure-aware mutations, in place. */
export function mutateJson(rng: Rng, doc: { [k: string]: Json }): string {
  const done: string[] = [];
  for (let m = rng.int(1, 3); m > 0; m--) {
    const all = slots(doc);
    if (all.length === 0) break;
    const { parent, key } = rng.pick(all);
    const op = rng.int(0, 5);
    const p = parent as Record<string | number, Json>;
    if (op <= 2) {
      p[key] = wrongValue(rng);
      done.push(`set ${key}`);
    } else if (op === 3) {
      if (Array.isArray(parent)) parent.splice(key as number, 1);
      else delete p[key];
      done.push(`delete ${key}`);
    } else if (op === 4 && Array.isArray(parent)) {
      for (let i = rng.int(1, 50); i > 0; i--) parent.push(structuredClone(parent[key as number] as Json));
      done.push(`duplicate ${key}`);
    } else {
      if (!Array.isArray(parent))
        p[rng.pick(['__proto__', 'constructor', 'toString', rng.string(6)])] = wrongValue(rng);
      done.push('extra key');
    }
  }
  return done.join(',');
}

/** Byte-level mutations of an encoded body: bit flips, truncation, insertion, varints that never end. */
export function mutateBytes(rng: Rng, body: Buffer): Buffer {
  let b = Buffer.from(body);
  for (let m = rng.int(1, 4); m > 0; m--) {
    const at = b.length === 0 ? 0 : rng.int(0, b.length - 1);
    switch (rng.int(0, 5)) {
      case 0:
        if (b.length) b[at] = (b[at] as number) ^ (1 << rng.int(0, 7));
        break;
      case 1:
        b = b.subarray(0, at);
        break;
      case 2:
        b = Buffer.concat([b.subarray(0, at), rng.bytes(rng.int(1, 16)), b.subarray(at)]);
        break;
      case 3:
        b = Buffer.concat([b.subarray(0, at), Buffer.alloc(rng.int(1, 10), 0xff), b.subarray(at)]);
        break;
      case 4:
        if (b.length) b[at] = rng.pick([0x00, 0x7f, 0x80, 0xff, 0x0a, 0x12, 0x22]);
        break;
      default:
        b = Buffer.concat([b, b.subarray(at, Math.min(b.length, at + rng.int(1, 64)))]);
    }
  }
  return b;
}

/** An OTLP/JSON request whose one span carries an AnyValue nested `depth` deep (as text: too deep to stringify). */
export function deepJson(depth: number): Buffer {
  const deep = `${'{"arrayValue":{"values":['.repeat(depth)}{"stringValue":"leaf"}${']}}'.repeat(depth)}`;
  const span = `{"traceId":"${'01'.repeat(16)}","spanId":"${'02'.repeat(8)}","name":"s","attributes":[{"key":"k","value":${deep}}]}`;
  return Buffer.from(`{"resourceSpans":[{"scopeSpans":[{"spans":[${span}]}]}]}`);
}

/** A protobuf ExportTraceServiceRequest whose one span carries an AnyValue nested `depth` deep (hand-encoded). */
export function deepProtobuf(depth: number): Buffer {
  const len = (n: number) => {
    const out: number[] = [];
    let v = n;
    while (v > 127) {
      out.push((v & 0x7f) | 0x80);
      v >>>= 7;
    }
    out.push(v);
    return Buffer.from(out);
  };
  const field = (tag: number, payload: Buffer) =>
    Buffer.concat([Buffer.from([(tag << 3) | 2]), len(payload.length), payload]);
  let value = field(1, Buffer.from('leaf')); // AnyValue.string_value
  for (let i = 0; i < depth; i++) value = field(5, field(1, value)); // AnyValue.array_value{values}
  const kv = Buffer.concat([field(1, Buffer.from('k')), field(2, value)]);
  const spanMsg = Buffer.concat([
    field(1, Buffer.alloc(16, 1)),
    field(2, Buffer.alloc(8, 2)),
    field(5, Buffer.from('s')),
    field(9, kv),
  ]);
  return field(1, field(2, field(2, spanMsg))); // resource_spans{scope_spans{spans}}
}

const CONTENT_TYPES = [
  'application/x-protobuf',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/x-protobuf; proto=x',
  'application/protobuf',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  '',
  ';',
  'application/json;;;',
  'application/x-protobuf, application/json',
];

function authHeader(rng: Rng, token: string): string | undefined {
  return rng.pick<() => string | undefined>([
    () => `Bearer ${token}`,
    () => `Bearer ${token}`,
    () => `Bearer ${token}`,
    () => `bearer   ${token}  `,
    () => undefined,
    () => 'Bearer',
    () => 'Bearer ',
    () => `Bearer ${token}x`,
    () => `Bearer ${token} extra`,
    () => `Basic ${Buffer.from('a:b').toString('base64')}`,
    () => `Bearer ${'a'.repeat(rng.int(1, 8000))}`,
    () => rng.string(30).replace(/[^\t\x20-\x7e]/g, '?'),
  ])();
}

export interface OtlpGenOptions {
  token: string;
}

/** One case: a body (valid, mutated, random, deep), its encoding and headers. */
export function otlpCase(rng: Rng, options: OtlpGenOptions): OtlpCase {
  const json = rng.bool(0.45);
  let label: string;
  let body: Buffer;
  let spans: number | undefined;
  const kind = rng.int(0, 19);
  if (kind === 0) {
    body = rng.bytes(rng.int(0, 512));
    label = 'random bytes';
  } else if (kind === 1) {
    body = json ? deepJson(rng.int(30, 20_000)) : deepProtobuf(rng.int(30, 3000));
    label = json ? 'deep json' : 'deep protobuf AnyValue';
  } else if (kind === 2 && json) {
    body = Buffer.from(
      rng.pick(['[', '{', '{"resourceSpans":', 'null', '1', '"x"', '[]', '{}', '{"resourceSpans":null}']),
    );
    label = 'json fragment';
    spans = undefined;
  } else {
    const doc = validRequestJson(rng);
    let what = 'valid';
    if (kind >= 8) what = `mutated(${mutateJson(rng, doc)})`;
    if (json) {
      body = Buffer.from(JSON.stringify(doc));
      try {
        spans = jsonSpanCount(JSON.parse(body.toString()));
      } catch {
        spans = undefined;
      }
    } else {
      // Protobuf of a mutated document: only what the JSON converter still accepts can be encoded.
      try {
        const { request } = exportTraceServiceRequestFromJson(doc);
        body = Buffer.from(encodeExportTraceServiceRequest(request));
        spans = request.resourceSpans.reduce((n, r) => n + r.scopeSpans.reduce((m, s) => m + s.spans.length, 0), 0);
      } catch {
        body = Buffer.from(JSON.stringify(doc));
        what += ' json-as-protobuf';
      }
    }
    if (rng.bool(0.25)) {
      body = mutateBytes(rng, body);
      what += '+bytes';
      spans = undefined;
    }
    label = what;
  }
  const headers: Record<string, string> = {};
  const ct = rng.bool(0.85) ? (json ? 'application/json' : 'application/x-protobuf') : rng.pick(CONTENT_TYPES);
  if (ct !== '' || rng.bool()) headers['content-type'] = ct;
  const auth = rng.bool(0.85) ? `Bearer ${options.token}` : authHeader(rng, options.token);
  if (auth !== undefined) headers.authorization = auth;
  if (auth !== `Bearer ${options.token}`) spans = undefined;
  const enc = rng.int(0, 9);
  if (enc === 1) {
    body = gzipSync(body);
    headers['content-encoding'] = rng.pick(['gzip', 'x-gzip', ' GZIP ']);
  } else if (enc === 2) {
    body = deflateSync(body);
    headers['content-encoding'] = 'deflate';
  } else if (enc === 3) {
    body = mutateBytes(rng, rng.bool() ? gzipSync(body) : deflateSync(body));
    headers['content-encoding'] = rng.pick(['gzip', 'deflate']);
    spans = undefined;
    label += ' garbled-compression';
  } else if (enc === 4) {
    headers['content-encoding'] = rng.pick(['gzip', 'deflate', 'br', 'zstd', 'gzip, deflate', 'identity, gzip', '']);
    spans = undefined;
    label += ' encoding-lies';
  } else if (enc === 5 && rng.bool(0.3)) {
    // A gzip bomb: small on the wire, larger than maxBodyBytes once inflated.
    body = gzipSync(Buffer.alloc(rng.int(1, 3) * 1024 * 1024));
    headers['content-encoding'] = 'gzip';
    spans = undefined;
    label = 'gzip bomb';
  }
  if (!headers['content-type']?.toLowerCase().startsWith('application/json') && json) spans = undefined;
  if (!headers['content-type']?.toLowerCase().startsWith('application/x-protobuf') && !json) spans = undefined;
  // Only a Content-Length that is over the limit: a short one would leave the parser waiting for bytes never sent.
  if (rng.bool(0.02)) headers['content-length'] = String(2 ** 40);
  return { label: `${json ? 'json' : 'protobuf'} ${label}`, headers, body, ...(spans !== undefined ? { spans } : {}) };
}
