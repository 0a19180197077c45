/**
 * A request a client sends twice (its first 200 was lost: a timeout, a dropped connection, a 503 for a send the
 * broker had appended) goes through the real collector into Kafka twice; the ingest stores its spans once.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startIngest } from '../../ingest/service.ts';
import { metricValue } from '../../platform/metrics/index.ts';
import { bytesToHex } from '../../platform/otlp/index.ts';
import { newTraceId, protobufBody, request, span } from '../../testkit/otlp-requests.ts';
import { services } from '../../testkit/services.ts';
import { until } from '../../testkit/wait.ts';
import { type RunningCollector, body as requestBody, startCollector } from '../integration/collector/harness.ts';
import { createHarness, type Harness } from '../integration/ingest/harness.ts';
import { TENANT_A, TOKEN_A } from '../unit/collector/fixtures.ts';

let h: Harness;
let collector: RunningCollector;

before(async () => {
  h = await createHarness('resent');
  collector = await startCollector({ kafka: { brokers: services.kafka.brokers, topic: h.topic, createTopic: false } });
});

after(async () => {
  await collector?.close();
  await h?.close();
});

test('a request the client sent twice through the collector is stored once', async () => {
  // Three traces of 4 spans, timed now (older spans would fall outside the retention).
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const spans = [0, 1, 2].flatMap(() => {
    const traceId = newTraceId();
    return [0, 1, 2, 3].map((i) =>
      span({ traceId, startTimeUnixNano: String(nowNs + BigInt(i)), endTimeUnixNano: String(nowNs + 1_000n) }),
    );
  });
  const body = protobufBody(request(spans));
  const send = async () => {
    const res = await fetch(collector.url, {
      method: 'POST',
      body: requestBody(body),
      headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${TOKEN_A}` },
    });
    assert.equal(res.status, 200);
  };
  await send();
  await send(); // the client's retry

  const ingest = await startIngest(h.config(), { log: () => {} });
  try {
    const db = h.db.database;
    const rows = `SELECT count() AS n FROM ${db}.spans WHERE Tenant = '${TENANT_A}'`;
    // Kafka holds both copies: the ingest has read them all once every trace's second message is accounted for.
    await until(
      'one re-sent message per trace is counted',
      async () => (await metricValue(ingest.metrics.resentMessages)) >= 3,
      {
        timeoutMs: 20_000,
        everyMs: 100,
      },
    );
    assert.equal(await metricValue(ingest.metrics.resentMessages), 3, 'one re-sent message per trace');
    assert.equal(await h.waitForCount(rows, 12), 12);
    assert.equal(await h.count(rows), 12, 'each span once');
    const stored = await h.count(`SELECT uniqExact(SpanId) AS n FROM ${db}.spans WHERE Tenant = '${TENANT_A}'`);
    assert.equal(stored, 12);
    assert.deepEqual(
      new Set(
        (
          await (
            await h.db.ch.query({ query: `SELECT SpanId FROM ${db}.spans`, format: 'JSONEachRow' })
          ).json<{ SpanId: string }>()
        ).map((r) => r.SpanId),
      ),
      new Set(spans.map((s) => bytesToHex(s.spanId))),
    );
  } finally {
    await ingest.stop();
  }
});
