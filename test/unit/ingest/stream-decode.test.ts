/**
 * The ingest's direct decoder must be indistinguishable from the generated one: for every payload, the same rows,
 * the same rejections (and dead-letter bytes), the same re-encoding, and for broken bytes the same error.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { Attr, EXECUTE_TOOL, GenAi, OtelResource, WarningEvent } from '../../../contract/index.ts';
import { type FlattenOptions, flatten, selectSpans } from '../../../ingest/flatten.ts';
import {
  type AnyValue,
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceRequestFast,
  type ExportTraceServiceRequest,
  encodeExportTraceServiceRequest,
  type KeyValue,
  type Span,
} from '../../../platform/otlp/index.ts';
import { syntheticMessage } from '../../support/ingest.ts';

const OPTIONS: FlattenOptions[] = [{}, { defaultTenant: 'fallback' }, { tenant: 'authenticated' }];

type Outcome = { error: string } | { request: ExportTraceServiceRequest };

function outcome(decode: (b: Uint8Array) => ExportTraceServiceRequest, bytes: Uint8Array): Outcome {
  try {
    return { request: decode(bytes) };
  } catch (err) {
    return { error: `${(err as Error).name}: ${(err as Error).message}` };
  }
}

/** Asserts both decoders agree on `bytes`; returns whether they decoded it. */
function assertSame(bytes: Uint8Array, label: string): boolean {
  const slow = outcome(decodeExportTraceServiceRequest, bytes);
  const fast = outcome(decodeExportTraceServiceRequestFast, bytes);
  if ('error' in slow || 'error' in fast) {
    assert.deepEqual(fast, slow, `${label}: same error`);
    return false;
  }
  for (const o of OPTIONS) {
    const a = flatten(fast.request, o);
    const b = flatten(slow.request, o);
    assert.deepStrictEqual(a, b, `${label}: same rows with ${JSON.stringify(o)}`);
    if (b.rejected.length > 0) {
      assert.deepEqual(
        Buffer.from(encodeExportTraceServiceRequest(selectSpans(fast.request, a.rejected))),
        Buffer.from(encodeExportTraceServiceRequest(selectSpans(slow.request, b.rejected))),
        `${label}: same dead letter`,
      );
    }
  }
  assert.deepEqual(
    Buffer.from(encodeExportTraceServiceRequest(fast.request)),
    Buffer.from(encodeExportTraceServiceRequest(slow.request)),
    `${label}: same re-encoding`,
  );
  return true;
}

/** A small seeded PRNG (mulberry32): failures reproduce from the printed seed. */
function prng(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number) => Math.floor(next() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)] as T;
  const chance = (p: number) => next() < p;
  const bytes = (n: number) => Buffer.from(Array.from({ length: n }, () => int(256)));
  return { int, pick, chance, bytes, next };
}
type Rand = ReturnType<typeof prng>;

const KEYS = [
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

function randomValue(r: Rand, depth: number): AnyValue {
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

function randomAttributes(r: Rand, depth: number, max: number): KeyValue[] {
  return Array.from({ length: r.int(max + 1) }, () =>
    r.chance(0.05) ? { key: r.pick(KEYS) } : { key: r.pick(KEYS), value: randomValue(r, depth) },
  );
}

function randomId(r: Rand, length: number): Buffer | undefined {
  if (r.chance(0.05)) return undefined;
  if (r.chance(0.05)) return Buffer.alloc(length);
  if (r.chance(0.05)) return r.bytes(length + 1);
  return r.bytes(length);
}

function randomSpan(r: Rand): Span {
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

function randomRequest(r: Rand): ExportTraceServiceRequest {
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
function field(no: number, wire: number, payload: Buffer): Buffer {
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

function sdkPayload(): Uint8Array {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
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

describe('ingest direct decoder (platform/otlp stream-decode)', () => {
  it('gives the same rows as the generated decoder for 500 random requests', () => {
    for (let seed = 1; seed <= 500; seed++) {
      const bytes = encodeExportTraceServiceRequest(randomRequest(prng(seed)));
      assert.ok(assertSame(bytes, `seed ${seed}`), `seed ${seed} decodes`);
    }
  });

  it('gives the same rows for the collector-shaped bench messages and the OTel SDK serializer output', () => {
    for (let seed = 0; seed < 20; seed++) {
      assert.ok(
        assertSame(syntheticMessage({ seed, toolSpans: 8, tenant: 'acme', warningEvery: 3 }), `synthetic ${seed}`),
      );
    }
    assert.ok(assertSame(sdkPayload(), 'sdk'));
  });

  it('gives the same rows for empty, absent and repeated fields and unknown fields of every wire type', () => {
    assert.ok(assertSame(new Uint8Array(0), 'empty request'));
    assert.ok(assertSame(Buffer.from([0x0a, 0x00]), 'empty ResourceSpans'));
    const base = Buffer.from(encodeExportTraceServiceRequest(randomRequest(prng(42))));
    const unknown = Buffer.concat([
      field(99, 0, Buffer.from([0x96, 0x01])),
      field(98, 1, Buffer.alloc(8, 1)),
      field(97, 2, Buffer.from('junk')),
      field(96, 5, Buffer.alloc(4, 2)),
    ]);
    assert.ok(assertSame(Buffer.concat([unknown, base, unknown]), 'unknown top-level fields'));
    // A span with unknown fields and a second name (last wins), inside a scope given twice (last wins).
    const spanBytes = Buffer.concat([
      field(1, 2, Buffer.alloc(16, 0xab)),
      field(2, 2, Buffer.alloc(8, 0xcd)),
      field(5, 2, Buffer.from('first')),
      unknown,
      field(5, 2, Buffer.from('second')),
      field(9, 2, Buffer.concat([field(1, 2, Buffer.from('k')), field(2, 2, field(1, 2, Buffer.from('v'))), unknown])),
      field(9, 2, Buffer.concat([field(1, 2, Buffer.from('noValue'))])),
      field(
        9,
        2,
        Buffer.concat([
          field(1, 2, Buffer.from('both')),
          field(2, 2, Buffer.concat([field(1, 2, Buffer.from('s')), field(3, 0, Buffer.from([5]))])),
        ]),
      ),
    ]);
    const tenant = field(
      1,
      2,
      Buffer.concat([field(1, 2, Buffer.from(Attr.TENANT)), field(2, 2, field(1, 2, Buffer.from('acme')))]),
    );
    const rs = Buffer.concat([
      field(
        2,
        2,
        Buffer.concat([
          field(1, 2, field(1, 2, Buffer.from('a'))),
          field(2, 2, spanBytes),
          field(1, 2, field(1, 2, Buffer.from('b'))),
        ]),
      ),
      field(1, 2, tenant),
      unknown,
    ]);
    assert.ok(assertSame(field(1, 2, rs), 'resource after its spans, repeated fields'));
  });

  it('rejects spans without tenant or with bad ids for the same reasons', () => {
    const noTenant = encodeExportTraceServiceRequest({
      resourceSpans: [
        {
          resource: { attributes: [{ key: OtelResource.SERVICE_NAME, value: { stringValue: 's' } }] },
          scopeSpans: [{ spans: [randomSpan(prng(7)), randomSpan(prng(8))] }],
        },
      ],
    });
    assert.ok(assertSame(noTenant, 'no tenant'));
    assert.equal(flatten(decodeExportTraceServiceRequestFast(noTenant)).rejected[0]?.reason, 'missing_tenant');
  });

  it('decodes invalid UTF-8 the same way', () => {
    const bytes = Buffer.from(encodeExportTraceServiceRequest(randomRequest(prng(3))));
    const at = bytes.indexOf(Buffer.from('acme'));
    assert.ok(at > 0);
    for (const bad of [
      [0xc3, 0x28],
      [0xff, 0xfe],
      [0xe2, 0x82],
    ]) {
      const copy = Buffer.from(bytes);
      copy[at] = bad[0]!;
      copy[at + 1] = bad[1]!;
      assert.ok(assertSame(copy, `utf8 ${bad}`));
    }
  });

  it('re-used strings never stand in for different bytes (look-alike keys, values and names; invalid UTF-8)', () => {
    // Same length, first and last byte: one cache slot. Each request is decoded after the others filled the cache.
    const keys = ['tool.ab', 'tool.xb', 'tool.ab', 'tool\u00e9b', 'tool.xb', 'tool\u00e9b'];
    const bytesOf = (key: string) =>
      Buffer.from(
        encodeExportTraceServiceRequest({
          resourceSpans: [
            {
              resource: { attributes: [{ key: Attr.TENANT, value: { stringValue: 'acme' } }] },
              scopeSpans: [
                {
                  spans: [
                    {
                      traceId: Buffer.alloc(16, 1),
                      spanId: Buffer.alloc(8, 2),
                      name: key,
                      attributes: [{ key, value: { stringValue: key } }],
                    },
                  ],
                },
              ],
            },
          ],
        }),
      );
    for (const key of keys) {
      assert.ok(assertSame(bytesOf(key), `key ${key}`));
      const row = flatten(decodeExportTraceServiceRequestFast(bytesOf(key))).spans[0];
      assert.deepEqual(row?.SpanAttributes, { [key]: key });
      assert.equal(row?.SpanName, key);
    }
    // A key of one invalid byte decodes to U+FFFD, as long as the byte: it must still be counted invalid each time.
    const invalid = bytesOf('tool.ab');
    for (let round = 0; round < 3; round++) {
      // Every occurrence (name, key, value) in turn, then all of them.
      for (const nth of [0, 1, 2, -1]) {
        const copy = Buffer.from(invalid);
        let at = -1;
        for (let k = 0; k <= Math.max(nth, 2); k++) {
          at = copy.indexOf(Buffer.from('tool.ab'), at + 1);
          if (nth === -1 || k === nth) copy[at + 4] = 0xff;
        }
        assert.ok(assertSame(copy, `invalid string ${nth}, round ${round}`));
      }
    }
  });

  it('fails on exactly the same corrupted or truncated bytes, with the same error', () => {
    let decoded = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = prng(seed * 7919);
      const bytes = Buffer.from(encodeExportTraceServiceRequest(randomRequest(r)));
      if (bytes.length === 0) continue;
      const copy = Buffer.from(bytes);
      for (let k = 0; k <= r.int(3); k++) copy[r.int(copy.length)] = r.int(256);
      if (assertSame(copy, `corrupted ${seed}`)) decoded++;
      assertSame(bytes.subarray(0, r.int(bytes.length)), `truncated ${seed}`);
    }
    assert.ok(decoded > 0, 'some corrupted payloads still decode (their rows were compared)');
  });
});
