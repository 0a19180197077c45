/**
 * The batch consumer against the real broker: where a partition's fetches start after a group join. The ingest
 * seeks a partition back (a failed insert or commit) while the join's committed offsets are still being read (a
 * broker just killed makes that read slow); those offsets must not undo the seek, or the partition is fetched
 * again from an older commit (the hour soak's 9,800 duplicated spans, docs/reliability.md).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import {
  createIdempotentProducer,
  deleteTopics,
  ensureTopics,
  type KafkaClient,
} from '../../../platform/kafka/index.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';
import { sleep, until } from '../../../testkit/wait.ts';

const topic = uniqueName('seek_after_join');
let kafka: KafkaClient | undefined;

after(async () => {
  if (kafka) await deleteTopics(kafka, [topic]).catch(() => {});
});

const values = (from: number, to: number) =>
  Array.from({ length: to - from + 1 }, (_, i) => ({ key: 'k', value: Buffer.from(`m${from + i}`) }));

test('a seek made during a group join is not undone by the committed offsets the join reads', async () => {
  kafka = await requireKafka();
  await ensureTopics(kafka, [{ topic, numPartitions: 1 }]);
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  await producer.send(topic, values(0, 9));

  const consumer = await kafka.createBatchConsumer({
    groupId: uniqueName('seek_after_join_group'),
    topic,
    fromBeginning: true,
    maxWaitTimeMs: 100,
  });
  // Sought and paused as the join is announced, as the ingest does after a failure, before the join's read of the
  // committed offsets (none: the log start) returns; resumed once that read has long returned (a broker answers it
  // in milliseconds here: were it slower than the pause, this test could not tell the fix from its absence).
  consumer.onAssignment((partitions) => {
    if (!partitions.includes(0)) return;
    consumer.seek(0, '6');
    consumer.pause([0]);
    void sleep(1_000).then(() => consumer.resume([0]));
  });
  const handled: number[] = [];
  try {
    await consumer.run(async (batch, control) => {
      for (const m of batch.messages) {
        handled.push(Number(m.offset));
        control.markFetched(m.offset);
      }
    });
    await until('offsets 6-9 handled', () => handled.includes(9), { timeoutMs: 30_000 });
    // One more message, produced and fetched after the join's read has long returned: the fetches go on from 10.
    await producer.send(topic, values(10, 10));
    await until('offset 10 handled', () => handled.includes(10), { timeoutMs: 30_000 });
    assert.deepEqual(handled, [6, 7, 8, 9, 10], 'fetched from the seek on, nothing from the log start');
  } finally {
    await producer.disconnect();
    await consumer.disconnect();
  }
});
