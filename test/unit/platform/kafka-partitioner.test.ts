/**
 * The producer's partitioner must put every key on the partition kafkajs' default partitioner (murmur2, as the
 * Java client) chooses: one trace's messages, whichever collector produced them, land together.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import kafkajs from 'kafkajs';
import { createKeyPartitioner } from '../../../platform/kafka/kafkajs/partitioner.ts';

const partitionMetadata = (n: number) =>
  Array.from({ length: n }, (_, i) => ({
    partitionErrorCode: 0,
    partitionId: i,
    leader: 0,
    replicas: [0],
    isr: [0],
    offlineReplicas: [],
  }));

describe('the Kafka producer partitioner', () => {
  it('chooses the default partitioner’s partition for every key (hex trace ids, other lengths, non-ASCII, buffers)', () => {
    const ours = createKeyPartitioner();
    const theirs = kafkajs.Partitioners.DefaultPartitioner();
    const keys: (string | Buffer)[] = ['', 'a', 'ab', 'abc', 'abcd', 'abcde', 'héllo', 'trace-€', Buffer.from('xyz')];
    for (let i = 0; i < 5_000; i++) keys.push(randomBytes(16).toString('hex'));
    for (let i = 0; i < 500; i++)
      keys.push(
        randomBytes(1 + (i % 40))
          .toString('latin1')
          .replace(/[^\x20-\x7e]/g, 'z'),
      );
    for (const n of [1, 3, 7, 64]) {
      for (const key of keys) {
        const args = { topic: 't', partitionMetadata: partitionMetadata(n), message: { key, value: null } };
        assert.equal(ours(args), theirs(args), `key ${JSON.stringify(String(key))} of ${n} partitions`);
      }
    }
  });

  it('keeps an explicit partition', () => {
    const args = {
      topic: 't',
      partitionMetadata: partitionMetadata(3),
      message: { key: 'k', value: null, partition: 2 },
    };
    assert.equal(createKeyPartitioner()(args), 2);
  });
});
