import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance } from 'fastify';
import { buildCollectorServer } from '../../../collector/server.ts';
import { SinkUnavailableError } from '../../../collector/sink.ts';
import { Attr, EXECUTE_TOOL, GenAi } from '../../../contract/index.ts';
import {
  bytesToHex,
  decodeExportTraceServiceResponse,
  decodeRpcStatus,
  int64ToString,
  RpcCode,
} from '../../../platform/otlp/index.ts';
import { attr, bool, int, protobufBody, request, span, str, strs } from '../../../testkit/otlp-requests.ts';
import { untilTurn } from '../../../testkit/wait.ts';
import { EncodedRecordingSink, RecordingSink, TENANT_A, TENANT_B, TOKEN_A, TOKEN_B, testConfig } from './fixtures.ts';

const PROTO = 'application/x-protobuf';

function post(app: FastifyInstance, body: Buffer | string, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url: '/v1/traces',
    payload: body,
    headers: { 'content-type': PROTO, authorization: `Bearer ${TOKEN_A}`, ...headers },
  });
}

function resourceTenant(sink: RecordingSink, write = 0): string[] {
  return (sink.writes[write]?.request.resourceSpans ?? []).map(
    (rs) => rs.resource?.attributes.find((kv) => kv.key === Attr.TENANT)?.value?.stringValue ?? '(none)',
  );
}

function spanCount(sink: RecordingSink): number {
  return sink.writes.reduce(
    (n, w) =>
      n + w.request.resourceSpans.reduce((m, rs) => m + rs.scopeSpans.reduce((k, ss) => k + ss.spans.length, 0), 0),
    0,
  );
}

describe('collector server', () => {
  let sink: RecordingSink;
  let app: FastifyInstance;
  beforeEach(async () => {
    await app?.close();
    sink = new RecordingSink();
    app = await buildCollectorServer({
      config: testConfig({ limits: { maxBodyBytes: 64 * 1024, maxWireBytes: 32 * 1024, maxInFlightBytes: 96 * 1024 } }),
      sink,
    });
  });
  after(() => app?.close());

  it('accepts OTLP protobuf, answers an empty protobuf response and hands the spans to the sink', async () => {
    const spans = [span(), span()];
    const res = await post(app, protobufBody(request(spans)));
    assert.equal(res.statusCode, 200);
    assert.equal(res.headers['content-type'], PROTO);
    assert.equal(res.rawPayload.length, 0);
    assert.equal(spanCount(sink), 2);
    assert.equal(sink.writes[0]?.context.tenant, TENANT_A);
    const got = sink.writes[0]?.request.resourceSpans[0]?.scopeSpans[0]?.spans.map((s) => bytesToHex(s.spanId));
    assert.deepEqual(
      got,
      spans.map((s) => bytesToHex(s.spanId)),
    );
  });

  it('accepts OTLP/JSON with hex ids and answers JSON', async () => {
    const s = span();
    const json = {
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: bytesToHex(s.traceId),
                  spanId: bytesToHex(s.spanId),
                  name: 'json span',
                  kind: 3,
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000000001000',
                  attributes: [
                    { key: GenAi.OPERATION_NAME, value: { stringValue: EXECUTE_TOOL } },
                    { key: Attr.RESULT_COMPLETE, value: { boolValue: false } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const res = await post(app, JSON.stringify(json), { 'content-type': 'application/json; charset=utf-8' });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^application\/json/);
    assert.deepEqual(res.json(), {});
    const got = sink.writes[0]?.request.resourceSpans[0]?.scopeSpans[0]?.spans[0];
    assert.equal(bytesToHex(got?.traceId), bytesToHex(s.traceId));
    assert.equal(got?.kind, 3);
  });

  it('accepts gzip-compressed bodies', async () => {
    const res = await post(app, gzipSync(protobufBody(request([span()]))), { 'content-encoding': 'gzip' });
    assert.equal(res.statusCode, 200);
    assert.equal(spanCount(sink), 1);
  });

  it('refuses a request without a token with 401 and stores nothing', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      payload: protobufBody(request([span()])),
      headers: { 'content-type': PROTO },
    });
    assert.equal(res.statusCode, 401);
    assert.match(String(res.headers['www-authenticate']), /^Bearer/);
    assert.equal(decodeRpcStatus(res.rawPayload).code, RpcCode.UNAUTHENTICATED);
    assert.equal(sink.writes.length, 0);
  });

  it('refuses a wrong token with 401 and stores nothing', async () => {
    const res = await post(app, protobufBody(request([span()])), { authorization: 'Bearer not-a-known-token-xx' });
    assert.equal(res.statusCode, 401);
    assert.equal(sink.writes.length, 0);
  });

  it('stamps the token tenant over a tenant the payload claims, on the resource and the span', async () => {
    const claimed = span({ attributes: [attr(Attr.TENANT, str(TENANT_A)), attr('k', str('v'))] });
    const res = await post(app, protobufBody(request([claimed], [attr(Attr.TENANT, str(TENANT_A))])), {
      authorization: `Bearer ${TOKEN_B}`,
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(resourceTenant(sink), [TENANT_B]);
    const attrs = sink.writes[0]?.request.resourceSpans[0]?.resource?.attributes ?? [];
    assert.equal(attrs.filter((kv) => kv.key === Attr.TENANT).length, 1);
    const spanAttrs = sink.writes[0]?.request.resourceSpans[0]?.scopeSpans[0]?.spans[0]?.attributes ?? [];
    assert.deepEqual(
      spanAttrs.map((kv) => kv.key),
      ['k'],
    );
  });

  it('rejects only the span with an invalid trace id, naming it in partial_success', async () => {
    const bad = span({ traceId: Buffer.alloc(15, 7) });
    const good = span();
    const res = await post(app, protobufBody(request([good, bad])));
    assert.equal(res.statusCode, 200);
    const body = decodeExportTraceServiceResponse(res.rawPayload);
    assert.equal(int64ToString(body.partialSuccess?.rejectedSpans), '1');
    assert.match(body.partialSuccess?.errorMessage ?? '', new RegExp(`span ${bytesToHex(bad.spanId)}.*16 bytes`));
    assert.equal(spanCount(sink), 1);
  });

  for (const [rule, bad] of [
    ['an all-zero span id', span({ spanId: Buffer.alloc(8) })],
    ['a 7-byte span id', span({ spanId: Buffer.alloc(7, 1) })],
    ['a missing start time', span({ startTimeUnixNano: '0' })],
    ['an end before the start', span({ startTimeUnixNano: '2000', endTimeUnixNano: '1000' })],
    ['an unknown span kind', span({ kind: 9 })],
    ['an attribute with an empty key', span({ attributes: [attr('', str('x'))] })],
  ] as const) {
    it(`rejects a span with ${rule} and produces nothing`, async () => {
      const res = await post(app, protobufBody(request([bad])));
      assert.equal(res.statusCode, 200);
      const body = decodeExportTraceServiceResponse(res.rawPayload);
      assert.equal(int64ToString(body.partialSuccess?.rejectedSpans), '1');
      assert.ok((body.partialSuccess?.errorMessage ?? '').length > 0);
      assert.equal(sink.writes.length, 0);
    });
  }

  for (const [rule, attribute, message] of [
    [
      'a tooltrail bool attribute sent as a string',
      attr(Attr.RESULT_COMPLETE, str('true')),
      `${Attr.RESULT_COMPLETE} must be bool, got string "true"; completeness counted as unknown`,
    ],
    [
      'a tooltrail int attribute sent as a bool',
      attr(Attr.RESULT_ITEM_COUNT, bool(true)),
      `${Attr.RESULT_ITEM_COUNT} must be int, got bool true; counted as absent`,
    ],
    [
      'a tooltrail string[] attribute holding an int',
      attr(Attr.RESULT_REASONS, int(3)),
      `${Attr.RESULT_REASONS} must be string[], got int; counted as absent`,
    ],
    [
      'a tooltrail enum attribute with an unknown value',
      attr(Attr.EFFECT, str('delete')),
      `${Attr.EFFECT} must be one of read|mutation, got "delete"; counted as absent`,
    ],
    [
      'a tooltrail int attribute sent as an integer-valued double',
      attr(Attr.RESULT_ITEM_COUNT, { doubleValue: 0 }),
      `${Attr.RESULT_ITEM_COUNT} must be int, got double 0; stored as 0`,
    ],
  ] as const) {
    it(`keeps a span with ${rule}, saying so in partial_success without rejecting it`, async () => {
      const kept = span({ attributes: [attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)), attribute] });
      const res = await post(app, protobufBody(request([kept, span()])));
      assert.equal(res.statusCode, 200);
      const body = decodeExportTraceServiceResponse(res.rawPayload);
      assert.equal(int64ToString(body.partialSuccess?.rejectedSpans), '0');
      assert.equal(
        body.partialSuccess?.errorMessage,
        `kept 1 of 2 spans with contract problems, stored flagged: span ${bytesToHex(kept.spanId)} of trace ${bytesToHex(kept.traceId)}: ${message}`,
      );
      assert.equal(spanCount(sink), 2);
    });
  }

  it('keeps a span that is a tool call only by what it carries, saying so in partial_success', async () => {
    const kept = span({ attributes: [attr(GenAi.TOOL_NAME, str('list')), attr(Attr.EFFECT, str('read'))] });
    const res = await post(app, protobufBody(request([kept])));
    const body = decodeExportTraceServiceResponse(res.rawPayload);
    assert.equal(int64ToString(body.partialSuccess?.rejectedSpans), '0');
    assert.match(
      body.partialSuccess?.errorMessage ?? '',
      /gen_ai\.operation\.name is absent; stored as a tool call \(it carries tooltrail\.effect\)$/,
    );
    assert.equal(spanCount(sink), 1);
  });

  it('accepts tooltrail attributes of their contract types', async () => {
    const ok = span({
      attributes: [
        attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
        attr(Attr.RESULT_COMPLETE, bool(false)),
        attr(Attr.RESULT_ITEM_COUNT, int(0)),
        attr(Attr.RESULT_REASONS, strs('MORE_PAGES_AVAILABLE')),
        attr(Attr.EFFECT, str('read')),
      ],
    });
    const res = await post(app, protobufBody(request([ok])));
    assert.equal(res.statusCode, 200);
    assert.equal(res.rawPayload.length, 0);
    assert.equal(spanCount(sink), 1);
  });

  it('rejects a span holding a string that is not UTF-8', async () => {
    const body = protobufBody(request([span({ name: 'MARKER' }), span()]));
    const at = body.indexOf('MARKER');
    body[at] = 0xff;
    const res = await post(app, body);
    assert.equal(res.statusCode, 200);
    const out = decodeExportTraceServiceResponse(res.rawPayload);
    assert.equal(int64ToString(out.partialSuccess?.rejectedSpans), '1');
    assert.match(out.partialSuccess?.errorMessage ?? '', /UTF-8/);
    assert.equal(spanCount(sink), 1);
  });

  it('answers 400 with a protobuf google.rpc.Status to garbage bytes', async () => {
    const res = await post(app, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01, 0x02]));
    assert.equal(res.statusCode, 400);
    assert.equal(res.headers['content-type'], PROTO);
    const status = decodeRpcStatus(res.rawPayload);
    assert.equal(status.code, RpcCode.INVALID_ARGUMENT);
    assert.match(status.message, /ExportTraceServiceRequest/);
    assert.equal(sink.writes.length, 0);
  });

  it('answers 400 to truncated protobuf', async () => {
    const body = protobufBody(request([span(), span()]));
    const res = await post(app, body.subarray(0, body.length - 5));
    assert.equal(res.statusCode, 400);
    assert.equal(sink.writes.length, 0);
  });

  it('answers 400 with a JSON google.rpc.Status to a JSON body that is not OTLP', async () => {
    const res = await post(app, '{"resourceSpans": 3}', { 'content-type': 'application/json' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, RpcCode.INVALID_ARGUMENT);
    const notJson = await post(app, '{"resourceSpans": [', { 'content-type': 'application/json' });
    assert.equal(notJson.statusCode, 400);
    assert.equal(sink.writes.length, 0);
  });

  it('answers 415 to a content type that is not OTLP', async () => {
    const res = await post(app, 'hello', { 'content-type': 'text/plain' });
    assert.equal(res.statusCode, 415);
    assert.match(res.json().message, /application\/x-protobuf/);
    assert.equal(sink.writes.length, 0);
  });

  it('answers 415 to an unsupported Content-Encoding', async () => {
    const res = await post(app, protobufBody(request([span()])), { 'content-encoding': 'br' });
    assert.equal(res.statusCode, 415);
    assert.equal(sink.writes.length, 0);
  });

  it('answers 413 to a gzip bomb that inflates beyond the body limit', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * 1024 * 1024));
    assert.ok(bomb.length < 32 * 1024);
    const res = await post(app, bomb, { 'content-encoding': 'gzip' });
    assert.equal(res.statusCode, 413);
    assert.equal(sink.writes.length, 0);
  });

  it('answers 413 to a body larger than the wire limit', async () => {
    const res = await post(app, Buffer.alloc(40 * 1024, 1));
    assert.equal(res.statusCode, 413);
    assert.equal(sink.writes.length, 0);
  });

  it('answers 400 to a body that claims gzip but is not', async () => {
    const res = await post(app, Buffer.from('not gzip at all'), { 'content-encoding': 'gzip' });
    assert.equal(res.statusCode, 400);
  });

  it('answers 503 with Retry-After when the sink is unavailable', async () => {
    sink.behaviour = 'fail';
    sink.failure = new SinkUnavailableError('Kafka is down', 7);
    const res = await post(app, protobufBody(request([span()])));
    assert.equal(res.statusCode, 503);
    assert.equal(res.headers['retry-after'], '7');
    assert.equal(decodeRpcStatus(res.rawPayload).code, RpcCode.UNAVAILABLE);
  });

  it("answers 503 to another sink's retry-later error that carries retryAfterSeconds", async () => {
    class StoreUnavailable extends Error {
      readonly retryAfterSeconds = 3;
    }
    sink.behaviour = 'fail';
    sink.failure = new StoreUnavailable('ClickHouse is down');
    const res = await post(app, protobufBody(request([span()])));
    assert.equal(res.statusCode, 503);
    assert.equal(res.headers['retry-after'], '3');
  });

  it('answers 500, not 503, when the sink fails unexpectedly', async () => {
    sink.behaviour = 'fail';
    sink.failure = new TypeError('bug');
    const res = await post(app, protobufBody(request([span()])));
    assert.equal(res.statusCode, 500);
  });

  it('serves healthz, readyz (from the sink) and Prometheus metrics', async () => {
    await post(app, protobufBody(request([span(), span({ spanId: Buffer.alloc(8) })])));
    assert.equal((await app.inject('/healthz')).statusCode, 200);
    assert.equal((await app.inject('/readyz')).statusCode, 200);
    sink.isReady = false;
    assert.equal((await app.inject('/readyz')).statusCode, 503);
    const metrics = await app.inject('/metrics');
    assert.equal(metrics.statusCode, 200);
    assert.match(metrics.body, /^tooltrail_collector_spans_accepted_total 1$/m);
    assert.match(metrics.body, /tooltrail_collector_spans_rejected_total\{reason="invalid_span_id"\} 1/);
    assert.match(metrics.body, /tooltrail_collector_requests_total\{status="200"\} 1/);
  });

  it('serves no tenant name on /metrics without a metrics token', async () => {
    await post(app, protobufBody(request([span()])));
    const metrics = await app.inject('/metrics');
    assert.equal(metrics.statusCode, 200);
    assert.doesNotMatch(metrics.body, /tenant="/);
  });
});

describe('collector /metrics behind its token', () => {
  const METRICS_TOKEN = 'metrics-token-0123456789';
  let app: FastifyInstance;
  before(async () => {
    app = await buildCollectorServer({
      config: testConfig({ metrics: { token: METRICS_TOKEN, tenantLabels: true } }),
      sink: new RecordingSink(),
    });
  });
  after(() => app.close());

  it('refuses /metrics without the metrics token, and with a tenant token (401)', async () => {
    assert.equal((await app.inject('/metrics')).statusCode, 401);
    const withTenantToken = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN_A}` } });
    assert.equal(withTenantToken.statusCode, 401);
  });

  it('serves tenant labels to the holder of the metrics token', async () => {
    await post(app, protobufBody(request([span()])));
    const res = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    assert.equal(res.statusCode, 200);
    assert.match(res.body, /tooltrail_collector_spans_accepted_total\{tenant="tenant-a"\} 1/);
  });

  it('refuses tenant labels without a metrics token at configuration time, naming the key', () => {
    assert.throws(() => testConfig({ metrics: { tenantLabels: true } }), /collector\.metrics\.tenantLabels/);
  });
});

describe('collector backpressure', () => {
  it('answers 429 with Retry-After beyond the concurrent request limit, without reading the body', async () => {
    const sink = new RecordingSink();
    sink.behaviour = 'hang';
    const app = await buildCollectorServer({ config: testConfig({ limits: { maxConcurrentRequests: 1 } }), sink });
    try {
      const first = post(app, protobufBody(request([span()])));
      await untilTurn('1 request(s) wait in the sink', () => sink.waiting === 1);
      const second = await post(app, protobufBody(request([span()])));
      assert.equal(second.statusCode, 429);
      assert.equal(second.headers['retry-after'], '1');
      sink.behaviour = 'ok';
      sink.release();
      assert.equal((await first).statusCode, 200);
      const third = await post(app, protobufBody(request([span()])));
      assert.equal(third.statusCode, 200);
    } finally {
      sink.behaviour = 'ok';
      sink.release();
      await app.close();
    }
  });

  it('answers 429 when the bytes held for in-flight requests would exceed the limit', async () => {
    const sink = new RecordingSink();
    sink.behaviour = 'hang';
    const body = protobufBody(request(Array.from({ length: 40 }, () => span())));
    const app = await buildCollectorServer({
      config: testConfig({ limits: { maxBodyBytes: body.length, maxInFlightBytes: body.length + 10 } }),
      sink,
    });
    try {
      const first = post(app, body);
      await untilTurn('1 request(s) wait in the sink', () => sink.waiting === 1);
      const second = await post(app, body);
      assert.equal(second.statusCode, 429);
      sink.release();
      assert.equal((await first).statusCode, 200);
    } finally {
      sink.behaviour = 'ok';
      sink.release();
      await app.close();
    }
  });
});

describe('collector without auth', () => {
  let app: FastifyInstance;
  let sink: RecordingSink;
  before(async () => {
    sink = new RecordingSink();
    app = await buildCollectorServer({ config: testConfig({ auth: { mode: 'none' } }), sink });
  });
  after(() => app.close());

  it('stamps the no-auth tenant on requests without a token', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/v1/traces',
      payload: protobufBody(request([span()])),
      headers: { 'content-type': PROTO },
    });
    assert.equal(res.statusCode, 200);
    assert.deepEqual(resourceTenant(sink), ['default']);
  });
});

describe('collector fast path: what it leaves to the general path is counted by reason', () => {
  let app: FastifyInstance;
  const sink = new EncodedRecordingSink();
  before(async () => {
    app = await buildCollectorServer({ config: testConfig(), sink });
  });
  after(() => app.close());

  it('counts a span to flag as span_not_plain, and nothing for a request it takes', async () => {
    assert.equal((await post(app, protobufBody(request([span()])))).statusCode, 200);
    const flagged = span({ attributes: [attr(Attr.EFFECT, str('read'))] });
    assert.equal((await post(app, protobufBody(request([span(), flagged])))).statusCode, 200);
    assert.equal(sink.encoded.length, 1, 'the plain request went to the sink as per-trace messages');
    assert.equal(sink.writes.length, 1, 'the flagged one took the general path');
    const metrics = (await app.inject('/metrics')).body;
    assert.match(metrics, /^tooltrail_collector_fast_path_declines_total\{reason="span_not_plain"\} 1$/m);
    assert.doesNotMatch(metrics, /fast_path_declines_total\{reason="(?!span_not_plain)/);
  });
});
