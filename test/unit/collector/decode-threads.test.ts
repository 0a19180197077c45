import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildCollectorServer } from '../../../collector/server.ts';
import { SinkUnavailableError } from '../../../collector/sink.ts';
import { Attr } from '../../../contract/index.ts';
import {
  bytesToHex,
  decodeExportTraceServiceRequest,
  decodeExportTraceServiceResponse,
  decodeRpcStatus,
  int64ToString,
  RpcCode,
} from '../../../platform/otlp/index.ts';
import { attr, newTraceId, protobufBody, request, span, str } from '../../../testkit/otlp-requests.ts';
import { EncodedRecordingSink, TENANT_B, TOKEN_B, testConfig } from './fixtures.ts';

describe('collector with decode threads and a sink that takes per-trace messages', () => {
  let app: FastifyInstance;
  let sink: EncodedRecordingSink;
  before(async () => {
    sink = new EncodedRecordingSink();
    app = await buildCollectorServer({ config: testConfig({ decodeThreads: 1 }), sink });
  });
  after(() => app.close());

  const post = (body: Buffer | string, contentType = 'application/x-protobuf') =>
    app.inject({
      method: 'POST',
      url: '/v1/traces',
      payload: body,
      headers: { 'content-type': contentType, authorization: `Bearer ${TOKEN_B}` },
    });

  it('prepares on a thread: one message per trace, the tenant stamped, invalid spans reported', async () => {
    const t1 = newTraceId();
    const t2 = newTraceId();
    const bad = span({ spanId: Buffer.alloc(8) });
    const spans = [span({ traceId: t1 }), span({ traceId: t2 }), span({ traceId: t1 }), bad];
    const res = await post(protobufBody(request(spans, [attr(Attr.TENANT, str('forged'))])));
    assert.equal(res.statusCode, 200);
    const out = decodeExportTraceServiceResponse(res.rawPayload);
    assert.equal(int64ToString(out.partialSuccess?.rejectedSpans), '1');
    assert.equal(sink.writes.length, 0, 'the decoded request never reaches the main thread');
    const { messages, context } = sink.encoded.at(-1) ?? { messages: [], context: undefined };
    assert.equal(context?.tenant, TENANT_B);
    assert.equal(context?.spanCount, 3);
    assert.deepEqual(messages.map((m) => m.key).sort(), [bytesToHex(t1), bytesToHex(t2)].sort());
    for (const m of messages) {
      const decoded = decodeExportTraceServiceRequest(m.value);
      const tenants = decoded.resourceSpans[0]?.resource?.attributes.filter((kv) => kv.key === Attr.TENANT);
      assert.deepEqual(
        tenants?.map((kv) => kv.value?.stringValue),
        [TENANT_B],
      );
      const ids = decoded.resourceSpans.flatMap((rs) => rs.scopeSpans.flatMap((ss) => ss.spans.map((s) => s.traceId)));
      assert.ok(ids.every((id) => bytesToHex(id) === m.key));
      assert.equal(m.spanCount, ids.length);
    }
    // The thread's fast path left the body with an invalid span to the general path: counted on the main thread.
    assert.match((await app.inject('/metrics')).body, /fast_path_declines_total\{reason="span_not_plain"\} 1$/m);
  });

  it('answers 400 for what the thread finds is not OTLP', async () => {
    const res = await post(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]));
    assert.equal(res.statusCode, 400);
    assert.equal(decodeRpcStatus(res.rawPayload).code, RpcCode.INVALID_ARGUMENT);
    const json = await post('{"resourceSpans": 1}', 'application/json');
    assert.equal(json.statusCode, 400);
  });

  it('prepares OTLP/JSON on the thread too', async () => {
    const s = span();
    const body = JSON.stringify({
      resourceSpans: [
        {
          scopeSpans: [
            {
              spans: [
                {
                  traceId: bytesToHex(s.traceId),
                  spanId: bytesToHex(s.spanId),
                  startTimeUnixNano: '1700000000000000000',
                  endTimeUnixNano: '1700000000000000001',
                },
              ],
            },
          ],
        },
      ],
    });
    const res = await post(body, 'application/json');
    assert.equal(res.statusCode, 200);
    assert.deepEqual(res.json(), {});
    assert.equal(sink.encoded.at(-1)?.messages[0]?.key, bytesToHex(s.traceId));
  });

  it('answers 503 when the sink refuses the messages', async () => {
    sink.behaviour = 'fail';
    sink.failure = new SinkUnavailableError('down', 2);
    try {
      const res = await post(protobufBody(request([span()])));
      assert.equal(res.statusCode, 503);
      assert.equal(res.headers['retry-after'], '2');
    } finally {
      sink.behaviour = 'ok';
    }
  });
});
