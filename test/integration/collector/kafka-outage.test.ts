// test-lane: self-contained (its own Kafka on free ports, which it stops; scripts/test-lanes.js)
/**
 * Kafka stopped: requests get 503 with Retry-After and are not acknowledged; Kafka back: requests succeed again
 * without restarting the collector. Runs its OWN broker on other ports (never the shared one on 9092).
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createKafkaClient, KAFKA_CLIENTS, type KafkaClient } from '../../../platform/kafka/index.ts';
import { bytesToHex } from '../../../platform/otlp/index.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { kafkaJarsDir, kafkaService } from '../../../services/kafka/kafka.ts';
import { freePortRun } from '../../../services/process.ts';
import type { ManagedService } from '../../../services/service.ts';
import { protobufBody, request, span } from '../../../testkit/otlp-requests.ts';
import { services } from '../../../testkit/services.ts';
import { sleep } from '../../../testkit/wait.ts';
import { TOKEN_A } from '../../unit/collector/fixtures.ts';
import { body, type RunningCollector, readTopicUntil, spanIdsOf, startCollector } from './harness.ts';

// One broker for both clients: each test stops it and starts it again, so a second broker would only cost its start.
let home: string;
let broker: ManagedService;
let brokers: string[];

before(async () => {
  home = mkdtempSync(join(tmpdir(), 'tooltrail-collector-outage-'));
  mkdirSync(join(home, 'cache'), { recursive: true });
  // Reuse the cached broker jars: a second download would only cost time.
  symlinkSync(kafkaJarsDir(services.home), kafkaJarsDir(home));
  const port = await freePortRun(2);
  const config = loadServicesConfig({
    TOOLTRAIL_HOME: home,
    TOOLTRAIL_KAFKA_PORT: String(port),
    TOOLTRAIL_KAFKA_CONTROLLER_PORT: String(port + 1),
  });
  brokers = config.kafka.brokers;
  broker = kafkaService(config);
  await broker.up();
});

after(async () => {
  await broker?.down();
  if (home) rmSync(home, { recursive: true, force: true });
});

for (const client of KAFKA_CLIENTS)
  describe(`collector while its Kafka goes down and comes back (${client})`, () => {
    let running: RunningCollector;
    let kafka: KafkaClient;
    // A topic per client: each reads back only what its own collector acknowledged.
    const topic = `otlp_spans_outage_${client}`;

    before(async () => {
      await broker.up(); // a no-op when running; after a test that failed while it was down, up again
      kafka = createKafkaClient({ brokers, clientId: 'collector-outage-test', quiet: true, client });
      running = await startCollector({
        kafka: {
          brokers,
          topic,
          createTopic: true,
          topicPartitions: 1,
          // Well above the breaker's fast 503 below, so that the two stay apart on a loaded machine.
          sendTimeoutMs: 6_000,
          unavailableRetryAfterSeconds: 1,
          client,
        },
      });
    });

    after(async () => {
      await running?.close();
    });

    const post = (spanCount = 3) => {
      const spans = Array.from({ length: spanCount }, () => span());
      return fetch(running.url, {
        method: 'POST',
        body: body(protobufBody(request(spans))),
        headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${TOKEN_A}` },
      }).then((res) => ({ res, ids: spans.map((s) => bytesToHex(s.spanId)) }));
    };

    it('answers 503 with Retry-After while Kafka is down and 200 again once it is back', async () => {
      const acknowledged: string[] = [];
      const first = await post();
      assert.equal(first.res.status, 200);
      acknowledged.push(...first.ids);

      await broker.down();
      const down = await post();
      assert.equal(down.res.status, 503);
      assert.equal(down.res.headers.get('retry-after'), '1');
      const fast = Date.now();
      const again = await post();
      assert.equal(again.res.status, 503);
      assert.ok(Date.now() - fast < 3_000, 'with the breaker open, a 503 comes without waiting for Kafka (6 s)');
      assert.equal((await fetch(running.url.replace('/v1/traces', '/readyz'))).status, 503);

      await broker.up();
      let recovered = false;
      const deadline = Date.now() + 120_000;
      while (!recovered && Date.now() < deadline) {
        const attempt = await post();
        if (attempt.res.status === 200) {
          recovered = true;
          acknowledged.push(...attempt.ids);
        } else {
          assert.equal(attempt.res.status, 503, 'only 503 while Kafka comes back');
          // As an exporter does: the next attempt after the Retry-After the collector asked for.
          await sleep(Number(attempt.res.headers.get('retry-after') ?? 1) * 1_000);
        }
      }
      assert.ok(recovered, 'the collector produces again once Kafka is back, without a restart');
      const later = await post();
      assert.equal(later.res.status, 200);
      acknowledged.push(...later.ids);
      assert.equal((await fetch(running.url.replace('/v1/traces', '/readyz'))).status, 200);

      const messages = await readTopicUntil(kafka, topic, (ms) =>
        acknowledged.every((id) => spanIdsOf(ms).includes(id)),
      );
      const stored = new Set(spanIdsOf(messages));
      assert.ok(
        acknowledged.every((id) => stored.has(id)),
        'every acknowledged span is in Kafka',
      );
    });
  });
