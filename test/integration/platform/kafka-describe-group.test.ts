/**
 * describeGroup against the real broker: the anchor bench times a consumer's work from the moment its group is
 * STABLE (bench/anchor/README.md), so the state must read STABLE while a member holds its partitions, and a group
 * nobody joined must read as absent rather than fail.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { deleteTopics, describeGroup, ensureTopics, type KafkaClient } from '../../../platform/kafka/index.ts';
import { requireKafka, uniqueName } from '../../../testkit/services.ts';
import { until } from '../../../testkit/wait.ts';

const topic = uniqueName('describe_group');
let kafka: KafkaClient | undefined;

after(async () => {
  if (kafka) await deleteTopics(kafka, [topic]).catch(() => {});
});

test('a group with a member holding its partitions reads STABLE with one member; once it left, not STABLE', async () => {
  kafka = await requireKafka();
  await ensureTopics(kafka, [{ topic, numPartitions: 2 }]);
  const groupId = uniqueName('describe_group_group');
  const consumer = await kafka.createBatchConsumer({ groupId, topic, fromBeginning: true, maxWaitTimeMs: 100 });
  let assigned = false;
  consumer.onAssignment((partitions) => {
    assigned = partitions.length === 2;
  });
  try {
    await consumer.run(async () => {});
    await until('partitions assigned', () => assigned, { timeoutMs: 30_000 });
    const k = kafka;
    await until('group stable', async () => (await describeGroup(k, groupId)).state === 'STABLE', {
      timeoutMs: 30_000,
    });
    assert.deepEqual(await describeGroup(kafka, groupId), { state: 'STABLE', members: 1 });
  } finally {
    await consumer.disconnect();
  }
  const left = await describeGroup(kafka, groupId);
  assert.notEqual(left.state, 'STABLE');
  assert.equal(left.members, 0);
});

test('a group nobody joined reads DEAD with no members, not an error', async () => {
  kafka = await requireKafka();
  assert.deepEqual(await describeGroup(kafka, uniqueName('never_joined')), { state: 'DEAD', members: 0 });
});
