/**
 * The soak's read-back against the real broker: ids produced to a topic are found with their partition and offset,
 * an id "acknowledged" but never produced is named as in no topic (a producer loss).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { readBackMissing } from '../../../chaos/topic-readback.ts';
import {
  createIdempotentProducer,
  deleteTopics,
  ensureTopics,
  type KafkaClient,
} from '../../../platform/kafka/index.ts';
import { encodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';

const topic = uniqueName('readback');
const dlq = `${topic}_dlq`;
let kafka: KafkaClient | undefined;

after(async () => {
  if (kafka) await deleteTopics(kafka, [topic, dlq]).catch(() => {});
});

const toolSpanIds = (seed: number, n: number) =>
  syntheticRequest({ tenant: 't', toolSpans: n, seed }).resourceSpans.flatMap((rs) =>
    rs.scopeSpans.flatMap((ss) =>
      ss.spans.filter((s) => s.parentSpanId?.length).map((s) => Buffer.from(s.spanId ?? []).toString('hex')),
    ),
  );

test('names the missing spans that are in the topic with partition and offset, and an acknowledged id never produced as in no topic', async () => {
  kafka = await requireKafka();
  await ensureTopics(kafka, [
    { topic, numPartitions: 3 },
    { topic: dlq, numPartitions: 1 },
  ]);
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  const seeds = [101, 102, 103, 104];
  await producer.send(
    topic,
    seeds.map((seed) => ({
      key: String(seed),
      value: Buffer.from(encodeExportTraceServiceRequest(syntheticRequest({ tenant: 't', toolSpans: 5, seed }))),
    })),
  );
  await producer.send(dlq, [
    {
      key: 'x',
      value: Buffer.from(encodeExportTraceServiceRequest(syntheticRequest({ tenant: 't', toolSpans: 2, seed: 105 }))),
    },
  ]);
  await producer.disconnect();

  const inTopic = [...toolSpanIds(101, 5).slice(0, 2), ...toolSpanIds(104, 5).slice(4)];
  const dead = toolSpanIds(105, 2)[0] as string;
  const neverProduced = toolSpanIds(999, 1)[0] as string; // "acknowledged", never sent to Kafka
  const r = await readBackMissing(kafka, [topic, dlq], [...inTopic, dead, neverProduced]);

  assert.deepEqual(r.notInKafka, [neverProduced]);
  assert.deepEqual(
    r.deadLettered.map((x) => [x.spanId, x.at.topic]),
    [[dead, dlq]],
  );
  assert.deepEqual(
    r.inTopic.map((x) => x.spanId),
    inTopic,
  );
  for (const x of r.inTopic) {
    assert.equal(x.at.topic, topic);
    assert.ok(x.at.partition >= 0 && x.at.partition < 3, `partition ${x.at.partition}`);
    assert.match(x.at.offset, /^\d+$/);
  }
  // The two ids of one message sit at the same place.
  assert.deepEqual(r.inTopic[0]?.at, r.inTopic[1]?.at);
});
