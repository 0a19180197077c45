/**
 * Random and hand-made OTLP payloads for the ingest decoder tests (the one reader, the column path, the pipeline agreement): seeded, so a
 * failure reproduces from the printed seed.
 */
import assert from 'node:assert/strict';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  ATTRIBUTE_TYPES,
  Attr,
  ENUM_VALUES,
  EXECUTE_TOOL,
  GenAi,
  isJudgedContractKey,
  marksToolSpan,
  OtelResource,
  recognizeToolSpan,
  WarningEvent,
} from '../../../contract/index.ts';
import { otlpCase } from '../../../fuzz/otlp-gen.ts';
import { Rng } from '../../../fuzz/rng.ts';
import { encodeNative } from '../../../platform/native/encode.ts';
import type { AnyValue, ExportTraceServiceRequest, KeyValue, Span } from '../../../platform/otlp/index.ts';
import { mulberry32 } from '../../../platform/seeded-random.ts';
import { type Rows, SPAN_NATIVE, TOOL_CALL_NATIVE, WARNING_NATIVE } from '../../../schema/rows.ts';

/** Seeded helpers over mulberry32: failures reproduce from the printed seed. */
export function prng(seed: number) {
  const next = mulberry32(seed);
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const chance = (p: number) => next() < p;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  return { int, pick, chance, bytes, next };
}
export type Rand = ReturnType<typeof prng>;

/** `bytes` with one to four bytes overwritten, and `bytes` cut short: what the reader tests feed both readers. */
export function damaged(r: Rand, bytes: Buffer): { corrupted: Buffer; truncated: Buffer } {
  const corrupted = Buffer.from(bytes);
  for (let k = 0; k <= r.int(3); k++) corrupted[r.int(corrupted.length)] = r.int(256);
  return { corrupted, truncated: bytes.subarray(0, r.int(bytes.length)) };
}

/** The plain protobuf bodies (not compressed, not JSON) among `cases` fuzzer cases (fuzz/otlp-gen.ts) from `seed`. */
export function* fuzzProtobufBodies(seed: number, cases: number): Generator<{ body: Buffer; label: string }> {
  const rng = new Rng(seed);
  for (let k = 0; k < cases; k++) {
    const c = otlpCase(rng, { token: 't' });
    if (c.headers['content-encoding'] !== undefined || c.label.startsWith('json')) continue;
    yield { body: c.body, label: `fuzz case ${k} (${c.label})` };
  }
}

export const KEYS = [
  ...Object.values(Attr),
  GenAi.OPERATION_NAME,
  GenAi.TOOL_NAME,
  GenAi.TOOL_CALL_ID,
  GenAi.CONVERSATION_ID,
  GenAi.AGENT_NAME,
  GenAi.AGENT_ID,
  OtelResource.SERVICE_NAME,
  WarningEvent.CODE,
  WarningEvent.SOURCE,
  WarningEvent.MESSAGE,
  'http.method',
  'ünïcödé',
  '',
];

/** Set by `plainRequest`: only strings, bools, ints, doubles and string arrays, unique keys (the common case). */
let plain = false;

export function randomValue(r: Rand, depth: number): AnyValue {
  if (plain) {
    switch (r.int(6)) {
      case 0:
      case 1:
        return { stringValue: r.pick([EXECUTE_TOOL, 'x', '', 'ü€😀', 'complete', 'MORE_PAGES_AVAILABLE', 'a"b\\c']) };
      case 2:
        return { boolValue: r.chance(0.5) };
      case 3:
        return { intValue: r.pick([0, 1, -1, 7, 2 ** 40, '-9223372036854775808', '9223372036854775807']) };
      case 4:
        return { doubleValue: r.pick([0, 1.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY, 1e300]) };
      default:
        return {
          arrayValue: { values: Array.from({ length: r.int(3) }, () => ({ stringValue: r.pick(['a', 'ü', '']) })) },
        };
    }
  }
  switch (r.int(depth > 2 ? 5 : 8)) {
    case 0:
      return { stringValue: r.pick([EXECUTE_TOOL, 'x', '', 'ü€😀', 'complete', 'MORE_PAGES_AVAILABLE']) };
    case 1:
      return { boolValue: r.chance(0.5) };
    case 2:
      return { intValue: r.pick([0, 1, -1, 7, 2 ** 40, '-9223372036854775808', '9223372036854775807']) };
    case 3:
      return { doubleValue: r.pick([0, 1.5, -2.25, Number.NaN, Number.POSITIVE_INFINITY, 1e300]) };
    case 4:
      return r.chance(0.5) ? {} : { bytesValue: r.bytes(r.int(5)) };
    case 5:
    case 6:
      return { arrayValue: { values: Array.from({ length: r.int(4) }, () => randomValue(r, depth + 1)) } };
    default:
      return { kvlistValue: { values: randomAttributes(r, depth + 1, 3) } };
  }
}

/** A value of the contract's type for a `tooltrail.*` key (the plain case: a sender that follows the contract). */
function contractValue(r: Rand, key: keyof typeof ATTRIBUTE_TYPES): AnyValue {
  switch (ATTRIBUTE_TYPES[key]) {
    case 'string': {
      const allowed = ENUM_VALUES[key];
      return { stringValue: allowed ? r.pick(allowed) : r.pick(['x', '', 'ü€😀', 'snap-1']) };
    }
    case 'bool':
      return { boolValue: r.chance(0.5) };
    case 'int':
      return { intValue: r.pick([0, 1, -1, 7, 2 ** 40, '9223372036854775807']) };
    case 'string[]':
      return {
        arrayValue: { values: Array.from({ length: r.int(3) }, () => ({ stringValue: r.pick(['a', 'ü', '']) })) },
      };
  }
}

export function randomAttributes(r: Rand, depth: number, max: number): KeyValue[] {
  if (plain) {
    const keys = [...new Set(Array.from({ length: r.int(max + 1) }, () => r.pick(KEYS)))];
    return keys.map((key) => ({
      key,
      value: depth === 0 && isJudgedContractKey(key) ? contractValue(r, key) : randomValue(r, depth),
    }));
  }
  return Array.from({ length: r.int(max + 1) }, () =>
    r.chance(0.05) ? { key: r.pick(KEYS) } : { key: r.pick(KEYS), value: randomValue(r, depth) },
  );
}

export function randomId(r: Rand, length: number): Buffer | undefined {
  if (r.chance(0.05)) return undefined;
  if (r.chance(0.05)) return Buffer.alloc(length);
  if (r.chance(0.05)) return r.bytes(length + 1);
  return r.bytes(length);
}

export function randomSpan(r: Rand): Span {
  const tool = r.chance(0.6);
  const attributes = randomAttributes(r, 0, 12);
  if (tool)
    attributes.splice(r.int(attributes.length + 1), 0, {
      key: GenAi.OPERATION_NAME,
      value: { stringValue: EXECUTE_TOOL },
    });
  const t = 1_700_000_000_000_000_000n + BigInt(r.int(1e9));
  const s: Span = {
    traceId: randomId(r, 16) ?? null,
    spanId: randomId(r, 8) ?? null,
    name: r.pick(['execute_tool list', 'turn', '']),
    kind: r.pick([0, 1, 2, 3, 5, 9]),
    startTimeUnixNano: t.toString(),
    endTimeUnixNano: (r.chance(0.1) ? t - 5n : t + BigInt(r.int(1e6))).toString(),
    attributes,
    events: Array.from({ length: r.pick([0, 0, 1, 3]) }, () => ({
      name: r.pick([WarningEvent.NAME, 'other']),
      timeUnixNano: r.chance(0.2) ? '0' : (t + 10n).toString(),
      attributes: randomAttributes(r, 0, 4),
    })),
    links: Array.from({ length: r.pick([0, 0, 2]) }, () => ({
      traceId: r.bytes(16),
      spanId: r.bytes(8),
      traceState: r.pick(['', 'a=b']),
      attributes: randomAttributes(r, 0, 2),
    })),
  };
  if (r.chance(0.7)) s.status = { code: r.pick([0, 1, 2, 7]), message: r.pick(['', 'boom']) };
  if (r.chance(0.3)) s.parentSpanId = r.bytes(8);
  if (r.chance(0.2)) s.traceState = 'k=v';
  return s;
}

export function randomRequest(r: Rand): ExportTraceServiceRequest {
  return {
    resourceSpans: Array.from({ length: 1 + r.int(3) }, () => {
      const attrs = randomAttributes(r, 0, 3);
      if (r.chance(0.8)) attrs.push({ key: Attr.TENANT, value: { stringValue: r.pick(['acme', 'beta']) } });
      if (r.chance(0.2)) attrs.push({ key: Attr.TENANT, value: { intValue: 3 } });
      return {
        ...(r.chance(0.9) ? { resource: { attributes: attrs } } : {}),
        scopeSpans: Array.from({ length: r.int(3) }, () => ({
          ...(r.chance(0.8) ? { scope: { name: 'lib', version: r.pick(['1.0', '']) } } : {}),
          spans: Array.from({ length: r.int(5) }, () => randomSpan(r)),
        })),
      };
    }),
  };
}

/** A protobuf field (tag + payload) appended to a message: unknown fields, repeated singular ones. */
export function field(no: number, wire: number, payload: Buffer): Buffer {
  const tag = (no << 3) | wire;
  const varint = (n: number) => {
    const out: number[] = [];
    while (n > 0x7f) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
    return Buffer.from(out);
  };
  return Buffer.concat([varint(tag), wire === 2 ? varint(payload.length) : Buffer.alloc(0), payload]);
}

export function sdkPayload(): Uint8Array {
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const tracer = provider.getTracer('diff-test', '1.2.3');
  const parent = tracer.startSpan('turn', { attributes: { n: 7, s: 'x', list: ['a', 'b'], ok: true, f: 1.5 } });
  const child = tracer.startSpan('execute_tool list', {
    attributes: {
      [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
      [GenAi.TOOL_NAME]: 'list',
      [Attr.RESULT_COMPLETE]: false,
      [Attr.RESULT_REASONS]: ['MORE_PAGES_AVAILABLE'],
      [Attr.RESULT_ITEM_COUNT]: 3,
      [Attr.SESSION_SEQUENCE]: 4,
    },
  });
  child.addEvent(WarningEvent.NAME, { [WarningEvent.CODE]: 'STALE_INDEX', [WarningEvent.MESSAGE]: 'old' });
  child.addLink({ context: parent.spanContext(), attributes: { why: 'caused' } });
  child.setStatus({ code: 2, message: 'failed' });
  child.end();
  parent.end();
  const bytes = ProtobufTraceSerializer.serializeRequest(exporter.getFinishedSpans());
  assert.ok(bytes);
  return bytes;
}

/** A random request of the common, well-formed kind: the values above, valid ids, a tenant on every resource. */
export function plainRequest(r: Rand): ExportTraceServiceRequest {
  plain = true;
  try {
    const request = randomRequest(r);
    for (const rs of request.resourceSpans) {
      const attrs = (rs.resource?.attributes ?? []).filter((kv) => kv.key !== Attr.TENANT);
      rs.resource = {
        attributes: [...attrs, { key: Attr.TENANT, value: { stringValue: r.pick(['acme', 'beta.eu-1']) } }],
      };
      for (const ss of rs.scopeSpans)
        for (const s of ss.spans) {
          s.traceId = Buffer.from(r.bytes(16).map((b) => b | 1));
          s.spanId = Buffer.from(r.bytes(8).map((b) => b | 1));
          const seen = new Set<string>();
          s.attributes = (s.attributes ?? []).filter((kv) => !seen.has(kv.key ?? '') && seen.add(kv.key ?? ''));
          // The plain case declares its tool spans: no span is a tool call only by what it carries.
          if (recognizeToolSpan(s.attributes).kind === 'inferred') {
            s.attributes = s.attributes.filter((kv) => !marksToolSpan(kv.key ?? '') && kv.key !== GenAi.TOOL_NAME);
          }
        }
    }
    return request;
  } finally {
    plain = false;
  }
}

/** The Native blocks (tool calls, warnings, spans) the row path writes for these rows; empty when a table has none. */
export function blocksOf(rows: Rows): Buffer[] {
  const block = <R extends object>(rs: R[], schema: Parameters<typeof encodeNative<R>>[1]) =>
    rs.length === 0 ? Buffer.alloc(0) : encodeNative(rs, schema);
  return [
    block(rows.toolCalls, TOOL_CALL_NATIVE),
    block(rows.warnings, WARNING_NATIVE),
    block(rows.spans, SPAN_NATIVE),
  ];
}
