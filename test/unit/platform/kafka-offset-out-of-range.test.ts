/**
 * A fetch answered OFFSET_OUT_OF_RANGE (platform/kafka/kafkajs/offset-out-of-range.ts): kafkajs must ask the leader
 * again on fresh metadata before it commits the default offset and re-reads the partition from its start.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { describe, it, mock } from 'node:test';
import '../../../platform/kafka/index.ts';
import { REFRESHES, WINDOW_MS } from '../../../platform/kafka/kafkajs/offset-out-of-range.ts';

const ConsumerGroup = createRequire(import.meta.url)('kafkajs/src/consumer/consumerGroup.js') as {
  prototype: { recoverFromOffsetOutOfRange(this: unknown, e: { topic: string; partition: number }): Promise<void> };
};

/** A group with the fields kafkajs' recovery reads; counts metadata refreshes and default-offset commits. */
function group() {
  const g = {
    refreshed: 0,
    defaults: [] as { topic: string; partition: number }[],
    groupId: 'g',
    memberId: 'm',
    preferredReadReplicasPerTopicPartition: {},
    logger: { info() {}, error() {} },
    cluster: { refreshMetadata: async () => void g.refreshed++ },
    offsetManager: { setDefaultOffset: async (tp: { topic: string; partition: number }) => void g.defaults.push(tp) },
  };
  return g;
}
const recover = (g: ReturnType<typeof group>, partition = 0) =>
  ConsumerGroup.prototype.recoverFromOffsetOutOfRange.call(g, { topic: 't', partition });

describe('kafkajs out-of-range recovery', () => {
  it('refreshes the metadata instead of resetting a partition to its default offset on its first out-of-range', async () => {
    const g = group();
    await recover(g);
    assert.equal(g.refreshed, 1);
    assert.deepEqual(g.defaults, []);
  });

  it(`resets to the default offset a partition still out of range after ${REFRESHES} refreshes`, async () => {
    const g = group();
    for (let i = 0; i < REFRESHES; i++) await recover(g);
    assert.deepEqual(g.defaults, []);
    await recover(g);
    assert.deepEqual(g.defaults, [{ topic: 't', partition: 0 }]);
    assert.equal(g.refreshed, REFRESHES);
  });

  it('counts the refreshes of each partition apart', async () => {
    const g = group();
    for (let i = 0; i < REFRESHES; i++) await recover(g, 0);
    await recover(g, 1);
    assert.deepEqual(g.defaults, []);
  });

  it('grants the refreshes again once the window has passed', async () => {
    mock.timers.enable({ apis: ['Date'], now: 1_000_000 });
    try {
      const g = group();
      for (let i = 0; i < REFRESHES; i++) await recover(g);
      mock.timers.tick(WINDOW_MS + 1);
      await recover(g);
      assert.deepEqual(g.defaults, []);
      assert.equal(g.refreshed, REFRESHES + 1);
    } finally {
      mock.timers.reset();
    }
  });
});
