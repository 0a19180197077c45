import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createIdempotentProducer,
  createSimpleConsumer,
  deleteTopics,
  ensureTopics,
  KAFKA_CLIENTS,
  type KafkaClient,
} from '../../../platform/kafka/index.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';

for (const client of KAFKA_CLIENTS)
  describe(`Kafka round trip (${client})`, () => {
    let kafka: KafkaClient;
    const topic = uniqueName('smoke');

    before(async () => {
      kafka = await requireKafka(client);
      await ensureTopics(kafka, [{ topic, numPartitions: 3 }]);
    });
    after(async () => {
      await deleteTopics(kafka, [topic]);
    });

    test('an idempotent producer and a consumer group round-trip keyed messages through the real broker', async () => {
      const producer = createIdempotentProducer(kafka);
      await producer.connect();
      const sent = Array.from({ length: 30 }, (_, i) => ({ key: `trace-${i % 5}`, value: Buffer.from(`span-${i}`) }));
      await producer.send(topic, sent);
      await producer.disconnect();

      const consumer = await createSimpleConsumer(kafka, uniqueName('smoke-group'), topic);
      const received: { key: string; value: string; partition: number }[] = [];
      await new Promise<void>((resolve, reject) => {
        consumer
          .run(async (m) => {
            received.push({ key: String(m.key), value: String(m.value), partition: m.partition });
            if (received.length === sent.length) resolve();
          })
          .catch(reject);
      });
      await consumer.disconnect();

      assert.deepEqual(received.map((r) => r.value).sort(), sent.map((s) => String(s.value)).sort());
      // Same key, same partition: one trace stays in one partition.
      const partitionsByKey = new Map<string, Set<number>>();
      for (const r of received) partitionsByKey.set(r.key, (partitionsByKey.get(r.key) ?? new Set()).add(r.partition));
      for (const [key, parts] of partitionsByKey) assert.equal(parts.size, 1, `key ${key} spread over ${[...parts]}`);
    });
  });
