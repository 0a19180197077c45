import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { BatchConsumer, KafkaClient } from '../../../platform/kafka/index.ts';
import { readTopic } from '../../../platform/kafka/index.ts';

const never = <T>() => new Promise<T>(() => {});

/** A client whose topic exists and whose other answers are given by the test (a fake: the rule is the reader's). */
function client(o: {
  lag: () => Promise<never> | ReturnType<KafkaClient['fetchConsumerLag']>;
  run?: () => Promise<void>;
}) {
  let disconnected = false;
  const consumer: BatchConsumer = {
    run: o.run ?? (async () => {}),
    commit: async () => {},
    confirmAssigned: async () => {},
    pause: () => {},
    resume: () => {},
    seek: () => {},
    onAssignment: () => {},
    onCrash: () => {},
    disconnect: async () => {
      disconnected = true;
    },
  };
  const kafka = {
    listTopics: async () => ['t'],
    fetchConsumerLag: o.lag,
    createBatchConsumer: async () => consumer,
  } as unknown as KafkaClient;
  return { kafka, disconnected: () => disconnected };
}

test('a read whose offsets are never answered ends in its timeout error, not a hang', async () => {
  const { kafka } = client({ lag: never });
  await assert.rejects(
    readTopic(kafka, 't', () => {}, { timeoutMs: 50 }),
    /reading t: not done after 50 ms \(offsets or group join not answered\)/,
  );
});

test('a read whose group join never returns ends in its timeout error and leaves the group', async () => {
  const c = client({
    lag: async () => [{ partition: 0, committed: '-1', highWatermark: '3', lag: 3 }],
    run: never,
  });
  await assert.rejects(
    readTopic(c.kafka, 't', () => {}, { timeoutMs: 50 }),
    /not done after 50 ms \(partitions left: 0\)/,
  );
  assert.ok(c.disconnected());
});
