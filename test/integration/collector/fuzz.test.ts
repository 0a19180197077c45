/**
 * Property: over random OTLP payloads (valid and invalid spans, JSON and protobuf, mutated bytes), the collector
 * never crashes, never answers 5xx to a client error, and every 200 corresponds to exactly its accepted spans in
 * Kafka (and nothing else is there).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { Attr } from '../../../contract/index.ts';
import type { KafkaClient } from '../../../platform/kafka/index.ts';
import {
  type AnyValue,
  bytesToHex,
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceResponse,
  type ExportTraceServiceRequest,
  int64ToString,
  type Span,
} from '../../../platform/otlp/index.ts';
import { protobufBody, span } from '../../../testkit/otlp-requests.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';
import { TOKEN_A } from '../../unit/collector/fixtures.ts';
import {
  body,
  dropTopic,
  freshTopic,
  type RunningCollector,
  readTopicUntil,
  spanIdsOf,
  startCollector,
} from './harness.ts';

const anyValue: fc.Arbitrary<AnyValue> = fc.oneof(
  fc.string().map((stringValue) => ({ stringValue })),
  fc.boolean().map((boolValue) => ({ boolValue })),
  fc.integer().map((intValue) => ({ intValue })),
  fc.double({ noNaN: false }).map((doubleValue) => ({ doubleValue })),
  fc
    .array(fc.string(), { maxLength: 3 })
    .map((xs) => ({ arrayValue: { values: xs.map((stringValue) => ({ stringValue })) } })),
  fc.constant({}),
);

const key = fc.oneof(
  fc.constantFrom(Attr.RESULT_COMPLETE, Attr.RESULT_ITEM_COUNT, Attr.RESULT_REASONS, Attr.EFFECT, Attr.TENANT, ''),
  fc.string({ maxLength: 12 }),
);

const idBytes = (good: number) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant(good) },
    { weight: 1, arbitrary: fc.constantFrom(0, 1, good - 1, good + 1) },
  );

const spanArb: fc.Arbitrary<Span> = fc
  .record({
    traceLen: idBytes(16),
    spanLen: idBytes(8),
    zeroTrace: fc.boolean().map((b) => b && Math.random() < 0.1),
    start: fc.bigInt({ min: 0n, max: 2n ** 63n }),
    duration: fc.bigInt({ min: -10n, max: 10n ** 12n }),
    kind: fc.integer({ min: -1, max: 7 }),
    name: fc.string({ maxLength: 20 }),
    attributes: fc.array(fc.record({ key, value: anyValue }), { maxLength: 5 }),
  })
  .map((r) => {
    // Span ids are random so every accepted span can be found again in Kafka.
    const traceId = r.zeroTrace ? Buffer.alloc(r.traceLen) : randomBytes(r.traceLen);
    const end = r.start + r.duration;
    return span({
      traceId,
      spanId: randomBytes(r.spanLen),
      startTimeUnixNano: r.start.toString(),
      endTimeUnixNano: (end < 0n ? 0n : end).toString(),
      kind: r.kind,
      name: r.name,
      attributes: r.attributes,
    });
  });

const requestArb: fc.Arbitrary<ExportTraceServiceRequest> = fc
  .array(fc.array(spanArb, { maxLength: 6 }), { minLength: 0, maxLength: 3 })
  .map((groups) => ({
    resourceSpans: groups.map((spans) => ({ resource: { attributes: [] }, scopeSpans: [{ spans }] })),
  }));

type Damage = { kind: 'none' } | { kind: 'truncate'; at: number } | { kind: 'overwrite'; edits: [number, number][] };

/** How a payload is damaged before sending: not at all, truncated, or a few bytes overwritten. */
const damageArb: fc.Arbitrary<Damage> = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.nat().map((at) => ({ kind: 'truncate' as const, at })) },
  {
    weight: 2,
    arbitrary: fc
      .array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 })
      .map((edits) => ({ kind: 'overwrite' as const, edits })),
  },
);

function damage(bytes: Buffer, d: Damage): Buffer {
  if (bytes.length === 0) return bytes;
  if (d.kind === 'truncate') return bytes.subarray(0, d.at % bytes.length);
  if (d.kind === 'overwrite') {
    const out = Buffer.from(bytes);
    for (const [at, v] of d.edits) out[at % out.length] = v;
    return out;
  }
  return bytes;
}

/** OTLP/JSON of a request (hex ids, 64-bit integers as strings), optionally with one span field replaced. */
function toJson(req: ExportTraceServiceRequest, mutation: JsonMutation | null): { json: string; ids: string[] } {
  const value = (v: AnyValue | null | undefined): unknown => {
    if (!v) return {};
    if (v.stringValue != null) return { stringValue: v.stringValue };
    if (v.boolValue != null) return { boolValue: v.boolValue };
    if (v.intValue != null) return { intValue: String(v.intValue) };
    if (v.doubleValue != null) {
      return { doubleValue: Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue) };
    }
    if (v.arrayValue != null) return { arrayValue: { values: v.arrayValue.values.map(value) } };
    return {};
  };
  const spans: Record<string, unknown>[] = [];
  const resourceSpans = req.resourceSpans.map((rs) => ({
    resource: { attributes: [] },
    scopeSpans: rs.scopeSpans.map((ss) => ({
      spans: ss.spans.map((sp) => {
        const j: Record<string, unknown> = {
          traceId: bytesToHex(sp.traceId),
          spanId: bytesToHex(sp.spanId),
          name: sp.name,
          kind: sp.kind,
          startTimeUnixNano: String(sp.startTimeUnixNano),
          endTimeUnixNano: String(sp.endTimeUnixNano),
          attributes: (sp.attributes ?? []).map((kv) => ({ key: kv.key, value: value(kv.value) })),
        };
        spans.push(j);
        return j;
      }),
    })),
  }));
  if (mutation && spans.length > 0) {
    const target = spans[mutation.span % spans.length] as Record<string, unknown>;
    target[mutation.field] = mutation.value;
  }
  const ids = spans.map((j) => (typeof j.spanId === 'string' ? j.spanId.toLowerCase() : ''));
  return { json: JSON.stringify({ resourceSpans }), ids };
}

interface JsonMutation {
  span: number;
  field: string;
  value: unknown;
}

const jsonMutationArb: fc.Arbitrary<JsonMutation | null> = fc.option(
  fc.record({
    span: fc.nat(),
    field: fc.constantFrom('traceId', 'spanId', 'kind', 'startTimeUnixNano', 'attributes', 'name', 'status', 'links'),
    value: fc.jsonValue({ maxDepth: 2 }),
  }),
);

function spanIds(bytes: Buffer): string[] | undefined {
  try {
    return decodeExportTraceServiceRequest(bytes)
      .resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans))
      .map((s) => bytesToHex(s.spanId));
  } catch {
    return undefined;
  }
}

describe('collector property: random OTLP payloads against real Kafka', () => {
  let kafka: KafkaClient;
  let topic: string;
  let running: RunningCollector;
  before(async () => {
    kafka = await requireKafka();
    topic = await freshTopic(kafka, uniqueName('collector_fuzz'), 1);
    running = await startCollector({ decodeThreads: 1, kafka: { topic, createTopic: false } });
  });
  after(async () => {
    await running?.close();
    if (topic) await dropTopic(kafka, topic);
  });

  it('never answers 5xx to client data, and every 200 matches exactly its accepted spans in Kafka', async () => {
    const outcomes: { ids: string[]; accepted: number }[] = [];
    await fc.assert(
      fc.asyncProperty(requestArb, damageArb, fc.boolean(), jsonMutationArb, async (req, d, asJson, mutation) => {
        if (asJson) {
          const { json, ids } = toJson(req, mutation);
          const res = await fetch(running.url, {
            method: 'POST',
            body: json,
            headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN_A}` },
          });
          const out = (await res.json()) as { partialSuccess?: { rejectedSpans?: string } };
          assert.equal(res.status, 200, `OTLP/JSON with a damaged span field: ${JSON.stringify(out)}`);
          const rejected = Number(out.partialSuccess?.rejectedSpans ?? 0);
          assert.ok(rejected >= 0 && rejected <= ids.length);
          outcomes.push({ ids, accepted: ids.length - rejected });
          return;
        }
        const sent = damage(protobufBody(req), d);
        const res = await fetch(running.url, {
          method: 'POST',
          body: body(sent),
          headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${TOKEN_A}` },
        });
        const payload = Buffer.from(await res.arrayBuffer());
        assert.ok(res.status === 200 || res.status === 400, `status ${res.status}: ${payload.toString('latin1')}`);
        const ids = spanIds(sent);
        if (res.status === 400) {
          assert.equal(ids, undefined, 'a 400 only for bytes that are not an ExportTraceServiceRequest');
          return;
        }
        assert.ok(ids, 'a 200 only for a decodable request');
        const rejected = Number(int64ToString(decodeExportTraceServiceResponse(payload).partialSuccess?.rejectedSpans));
        assert.ok(rejected >= 0 && rejected <= ids.length);
        outcomes.push({ ids, accepted: ids.length - rejected });
      }),
      { numRuns: 150, seed: Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31) },
    );
    const sentinel = span();
    const last = await fetch(running.url, {
      method: 'POST',
      body: body(
        protobufBody({ resourceSpans: [{ resource: { attributes: [] }, scopeSpans: [{ spans: [sentinel] }] }] }),
      ),
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${TOKEN_A}` },
    });
    assert.equal(last.status, 200);
    const sentinelId = bytesToHex(sentinel.spanId);
    const stored = spanIdsOf(await readTopicUntil(kafka, topic, (ms) => spanIdsOf(ms).includes(sentinelId)));
    const counts = new Map<string, number>();
    for (const id of stored) counts.set(id, (counts.get(id) ?? 0) + 1);
    let expectedTotal = 1;
    for (const o of outcomes) {
      const found = o.ids.reduce((n, id) => n + (counts.get(id) ?? 0), 0);
      assert.equal(found, o.accepted, 'the spans in Kafka are exactly the accepted ones of each 200');
      expectedTotal += o.accepted;
    }
    assert.equal(stored.length, expectedTotal, 'nothing else reached Kafka');
  });
});
