// test-lane: self-contained (a private 3-broker Kafka on free ports; scripts/test-lanes.js)
/**
 * The producer against a real 3-broker cluster (RF 3, min.insync.replicas 2) while leadership moves: a broker
 * leading partitions is killed -9 in the middle of sends that span every broker, and a partition is reassigned off
 * its leader. Whatever `send` acknowledged must be in the topic, read back from the beginning. On each client
 * (KAFKA_CLIENTS), one topic each on one cluster.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  createIdempotentProducer,
  createKafkaClient,
  ensureTopics,
  KAFKA_CLIENTS,
  type KafkaClient,
  type KafkaClientKind,
  type PartitionState,
  partitionStates,
  readTopic,
  reassignmentsInProgress,
  reassignPartition,
} from '../../../platform/kafka/index.ts';
import { type PrivateKafkaCluster, startPrivateKafkaCluster } from '../../../testkit/kafka-cluster.ts';

const PARTITIONS = 6;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if (await check()) return;
    } catch {}
    await sleep(250);
  }
  throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
}

let cluster: PrivateKafkaCluster;

before(async () => {
  cluster = await startPrivateKafkaCluster(3);
});
after(async () => {
  await cluster?.close();
});

/** A client of `kind` on the cluster, with `topic` created and every partition led and fully in sync. */
async function clientWithTopic(kind: KafkaClientKind, topic: string): Promise<KafkaClient> {
  const kafka = createKafkaClient({
    brokers: cluster.brokers,
    clientId: `failover-test-${kind}`,
    client: kind,
    quiet: true,
  });
  // A freshly started cluster may not know the new topic on every broker yet: ask again.
  await until('the topic created with its leaders', async () => {
    await ensureTopics(kafka, [{ topic, numPartitions: PARTITIONS }]);
    return (await partitionStates(kafka, topic)).every((p) => p.leader >= 0 && p.isr.length === 3);
  });
  return kafka;
}

/** Every message value in the topic, read from the beginning to the log ends (readTopic: no commits, no group). */
async function readBack(kafka: KafkaClient, topic: string): Promise<Set<string>> {
  const seen = new Set<string>();
  // The coordinator may still be moving after the faults: read again until one read reaches the ends.
  await until(
    'the topic read back to its ends',
    async () => {
      seen.clear();
      await readTopic(kafka, topic, (m) => seen.add(m.value?.toString() ?? ''), { timeoutMs: 120_000 });
      return true;
    },
    300_000,
  );
  return seen;
}

for (const client of KAFKA_CLIENTS)
  describe(`producer on a leader failover (real 3-broker cluster, ${client})`, () => {
    const topic = `failover-${client}`;
    test('every message an idempotent send acknowledged is in the topic after its leader is killed -9 mid-send and a partition is reassigned', {
      timeout: 420_000,
    }, async () => {
      const kafka = await clientWithTopic(client, topic);
      // Like the collector's sink: a few producers, each with one send in flight, each send spanning every partition.
      const producers = Array.from({ length: 3 }, () => createIdempotentProducer(kafka, { retries: 10 }));
      await Promise.all(producers.map((p) => p.connect()));
      const acked: string[] = [];
      let failedSends = 0;
      let ackedAfterKill = 0;
      let killed = false;
      let running = true;
      let n = 0;
      const loops = producers.map(async (producer, slot) => {
        while (running) {
          const values = Array.from({ length: 24 }, () => `m-${slot}-${n++}`);
          try {
            await producer.send(
              topic,
              values.map((v) => ({ key: v, value: Buffer.from(v) })),
            );
            acked.push(...values);
            if (killed) ackedAfterKill++;
          } catch {
            failedSends++; // not acknowledged: the caller sends again (the collector answers 503)
          }
        }
      });

      let before: PartitionState[] = [];
      let during: PartitionState[] = [];
      try {
        await sleep(2_000);
        before = await partitionStates(kafka, topic);
        const led = new Map<number, number>();
        for (const p of before) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
        const victim = [...led.entries()].sort((a, b) => b[1] - a[1])[0]![0];
        const node = cluster.nodes.find((x) => x.node.id === victim)!;
        await node.kill9();
        killed = true;
        await until('leaders off the killed broker', async () => {
          during = await partitionStates(kafka, topic);
          return during.every((p) => p.leader !== victim && p.leader >= 0);
        });
        await sleep(2_000);
        await node.up();
        await until('the restarted broker back in every ISR', async () =>
          (await partitionStates(kafka, topic)).every((p) => p.isr.length === 3),
        );

        // A partition off its leader: the old leader answers NOT_LEADER_OR_FOLLOWER to the sends in flight.
        const p0 = (await partitionStates(kafka, topic))[0]!;
        const rest = p0.replicas.filter((r) => r !== p0.leader);
        await reassignPartition(kafka, topic, 0, rest);
        await until('partition 0 reassigned off its leader', async () => {
          const q = (await partitionStates(kafka, topic))[0]!;
          return (await reassignmentsInProgress(kafka, topic)).length === 0 && q.leader !== p0.leader;
        });
        await sleep(1_000);
      } finally {
        // Also when a step above failed: the send loops must end, or the test process never exits.
        running = false;
        await Promise.all(loops);
        await Promise.all(producers.map((p) => p.disconnect()));
      }

      assert.ok(
        during.some((p) => before.find((q) => q.partition === p.partition)?.leader !== p.leader),
        'a leader moved',
      );
      assert.ok(ackedAfterKill > 0, 'sends were acknowledged after the kill');
      const stored = await readBack(kafka, topic);
      const missing = acked.filter((v) => !stored.has(v));
      assert.deepEqual(
        missing.slice(0, 20),
        [],
        `${missing.length} of ${acked.length} acknowledged messages are not in the topic (${failedSends} sends failed)`,
      );
    });
  });
