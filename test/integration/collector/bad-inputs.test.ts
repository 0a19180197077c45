import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Attr } from '../../../contract/index.ts';
import type { KafkaClient } from '../../../platform/kafka/index.ts';
import { bytesToHex, decodeExportTraceServiceResponse, int64ToString } from '../../../platform/otlp/index.ts';
import { attr, protobufBody, request, span, str } from '../../../testkit/otlp-requests.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';
import { TENANT_B, TOKEN_A, TOKEN_B } from '../../unit/collector/fixtures.ts';
import {
  body,
  dropTopic,
  freshTopic,
  type RunningCollector,
  readTopicUntil,
  spanIdsOf,
  startCollector,
} from './harness.ts';

const PROTO = 'application/x-protobuf';

interface Case {
  rule: string;
  body: Buffer | string;
  headers?: Record<string, string>;
  status: number;
  /** For 200s: spans the response must report rejected. */
  rejected?: number;
}

function withInvalidUtf8(): Buffer {
  const body = protobufBody(request([span({ name: 'MARKER' })]));
  body[body.indexOf('MARKER')] = 0xc0; // an overlong-encoding lead byte: never valid UTF-8
  return body;
}

const truncated = protobufBody(request([span(), span()]));

const CASES: Case[] = [
  { rule: 'garbage bytes as protobuf', body: Buffer.from('\x0a\xff\xff\xff\xff\x0f garbage', 'latin1'), status: 400 },
  { rule: 'truncated protobuf', body: truncated.subarray(0, truncated.length - 7), status: 400 },
  {
    rule: 'a wrong content type',
    body: protobufBody(request([span()])),
    headers: { 'content-type': 'text/plain' },
    status: 415,
  },
  {
    rule: 'a gzip bomb over the limit',
    body: gzipSync(Buffer.alloc(64 * 1024 * 1024)),
    headers: { 'content-encoding': 'gzip' },
    status: 413,
  },
  {
    rule: 'an invalid trace id',
    body: protobufBody(request([span({ traceId: Buffer.alloc(16) })])),
    status: 200,
    rejected: 1,
  },
  {
    rule: 'an invalid span id',
    body: protobufBody(request([span({ spanId: Buffer.alloc(9, 1) })])),
    status: 200,
    rejected: 1,
  },
  { rule: 'a non-UTF-8 string', body: withInvalidUtf8(), status: 200, rejected: 1 },
  { rule: 'a missing token', body: protobufBody(request([span()])), headers: { authorization: '' }, status: 401 },
  {
    rule: 'a wrong token',
    body: protobufBody(request([span()])),
    headers: { authorization: 'Bearer wrong-token-0123456789' },
    status: 401,
  },
  {
    rule: 'JSON that is not OTLP',
    body: '{"resourceSpans":"x"}',
    headers: { 'content-type': 'application/json' },
    status: 400,
  },
];

describe('collector bad inputs over HTTP with real Kafka', () => {
  let kafka: KafkaClient;
  let topic: string;
  let running: RunningCollector;
  before(async () => {
    kafka = await requireKafka();
    // One partition: once the sentinel is read, everything produced before it has been read too.
    topic = await freshTopic(kafka, uniqueName('collector_bad_inputs'), 1);
    running = await startCollector({ kafka: { topic, createTopic: false }, limits: { maxBodyBytes: 4 * 1024 * 1024 } });
  });
  after(async () => {
    await running?.close();
    if (topic) await dropTopic(kafka, topic);
  });

  it('answers each bad input with its status and produces nothing; a forged tenant is overridden', async () => {
    for (const c of CASES) {
      const headers: Record<string, string> = {
        'content-type': PROTO,
        authorization: `Bearer ${TOKEN_A}`,
        ...c.headers,
      };
      if (headers.authorization === '') delete headers.authorization;
      const res = await fetch(running.url, { method: 'POST', body: body(c.body), headers });
      assert.equal(res.status, c.status, c.rule);
      const payload = Buffer.from(await res.arrayBuffer());
      if (c.rejected !== undefined) {
        const out = decodeExportTraceServiceResponse(payload);
        assert.equal(int64ToString(out.partialSuccess?.rejectedSpans), String(c.rejected), c.rule);
      }
    }
    // A wrong contract attribute type is no reason to drop a span: it is produced, and the answer says what was wrong.
    const flagged = span({ attributes: [attr(Attr.RESULT_ITEM_COUNT, str('3'))] });
    const kept = await fetch(running.url, {
      method: 'POST',
      body: body(protobufBody(request([flagged]))),
      headers: { 'content-type': PROTO, authorization: `Bearer ${TOKEN_A}` },
    });
    assert.equal(kept.status, 200);
    const keptAnswer = decodeExportTraceServiceResponse(Buffer.from(await kept.arrayBuffer()));
    assert.equal(int64ToString(keptAnswer.partialSuccess?.rejectedSpans), '0');
    assert.match(
      keptAnswer.partialSuccess?.errorMessage ?? '',
      /tooltrail\.result\.item_count must be int, got string "3"/,
    );
    const forged = span({ attributes: [attr(Attr.TENANT, str('someone-else')), attr('k', str('v'))] });
    const claim = await fetch(running.url, {
      method: 'POST',
      body: body(protobufBody(request([forged], [attr(Attr.TENANT, str('someone-else'))]))),
      headers: { 'content-type': PROTO, authorization: `Bearer ${TOKEN_B}` },
    });
    assert.equal(claim.status, 200);
    const sentinel = span();
    const last = await fetch(running.url, {
      method: 'POST',
      body: body(protobufBody(request([sentinel]))),
      headers: { 'content-type': PROTO, authorization: `Bearer ${TOKEN_A}` },
    });
    assert.equal(last.status, 200);
    const sentinelId = bytesToHex(sentinel.spanId);
    const messages = await readTopicUntil(kafka, topic, (ms) => spanIdsOf(ms).includes(sentinelId));
    assert.deepEqual(spanIdsOf(messages), [bytesToHex(flagged.spanId), bytesToHex(forged.spanId), sentinelId]);
    const forgedResource = messages[1]?.request.resourceSpans[0]?.resource?.attributes ?? [];
    assert.deepEqual(
      forgedResource.filter((kv) => kv.key === Attr.TENANT).map((kv) => kv.value?.stringValue),
      [TENANT_B],
    );
    const forgedSpan = messages[1]?.spans[0];
    assert.deepEqual(
      forgedSpan?.attributes?.map((kv) => kv.key),
      ['k'],
      'a span-level tenant claim is removed before Kafka',
    );
  });
});
