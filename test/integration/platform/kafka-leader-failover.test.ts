// test-lane: self-contained (a private 3-broker Kafka on free ports; scripts/test-lanes.js)
/**
 * The producer against a real 3-broker cluster (RF 3, min.insync.replicas 2) while leadership moves: a broker
 * leading partitions is killed -9 in the middle of sends that span every broker, and a partition is reassigned off
 * its leader. Whatever `send` acknowledged must be in the topic, read back from the beginning. On each client
 * (KAFKA_CLIENTS), one topic each on one cluster, both clients sending through the same faults (one broker kill and
 * its rejoin serve both: a second kill would only repeat the wait for the ISR).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reassignmentsInProgress, reassignPartition } from '../../../chaos/kafka-reassign.ts';
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
} from '../../../platform/kafka/index.ts';
import { type PrivateKafkaCluster, startPrivateKafkaCluster } from '../../../testkit/kafka-cluster.ts';
import { until as untilHolds } from '../../../testkit/wait.ts';

const PARTITIONS = 6;

/** The cluster answers with errors while it elects leaders: those count as "not yet". */
const until = (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 90_000) =>
  untilHolds(what, check, { timeoutMs, everyMs: 250, ignoreErrors: true });

let cluster: PrivateKafkaCluster;

/** What one client's send loops saw while the faults ran. */
interface ClientRun {
  kafka: KafkaClient;
  topic: string;
  acked: string[];
  failedSends: number;
  ackedAfterKill: number;
  before: PartitionState[];
  during: PartitionState[];
}
const runs = new Map<KafkaClientKind, ClientRun>();

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

/** Like the collector's sink: a few producers, each with one send in flight, each send spanning every partition. */
async function startSending(run: ClientRun, killed: () => boolean): Promise<() => Promise<void>> {
  const producers = Array.from({ length: 3 }, () => createIdempotentProducer(run.kafka, { retries: 10 }));
  await Promise.all(producers.map((p) => p.connect()));
  let running = true;
  let n = 0;
  const loops = producers.map(async (producer, slot) => {
    while (running) {
      const values = Array.from({ length: 24 }, () => `m-${slot}-${n++}`);
      try {
        await producer.send(
          run.topic,
          values.map((v) => ({ key: v, value: Buffer.from(v) })),
        );
        run.acked.push(...values);
        if (killed()) run.ackedAfterKill++;
      } catch {
        run.failedSends++; // not acknowledged: the caller sends again (the collector answers 503)
      }
    }
  });
  return async () => {
    running = false;
    await Promise.all(loops);
    await Promise.all(producers.map((p) => p.disconnect()));
  };
}

const allStates = async (): Promise<PartitionState[][]> =>
  Promise.all([...runs.values()].map((r) => partitionStates(r.kafka, r.topic)));

before(
  async () => {
    cluster = await startPrivateKafkaCluster(3);
    for (const client of KAFKA_CLIENTS) {
      const topic = `failover-${client}`;
      const kafka = await clientWithTopic(client, topic);
      runs.set(client, { kafka, topic, acked: [], failedSends: 0, ackedAfterKill: 0, before: [], during: [] });
    }
    let killed = false;
    const stops = await Promise.all([...runs.values()].map((r) => startSending(r, () => killed)));
    try {
      const list = [...runs.values()];
      await until('every client has sends acknowledged', () => list.every((r) => r.acked.length > 0));
      for (const r of list) r.before = await partitionStates(r.kafka, r.topic);
      // The broker leading the most partitions among those leading some of every topic: each client sees a move.
      const leads = (id: number, r: ClientRun) => r.before.filter((p) => p.leader === id).length;
      const victim = cluster.nodes
        .map((x) => x.node.id)
        .filter((id) => list.every((r) => leads(id, r) > 0))
        .sort((a, b) => list.reduce((t, r) => t + leads(b, r) - leads(a, r), 0))[0];
      assert.ok(victim !== undefined, 'a broker leads partitions of every topic');
      const node = cluster.nodes.find((x) => x.node.id === victim)!;
      await node.kill9();
      killed = true;
      await until('leaders off the killed broker', async () => {
        const states = await allStates();
        list.forEach((r, i) => {
          r.during = states[i]!;
        });
        return states.every((parts) => parts.every((p) => p.leader !== victim && p.leader >= 0));
      });
      // The broker stays down until every client has had sends acknowledged by the moved leaders.
      await until('every client has sends acknowledged after the kill', () => list.every((r) => r.ackedAfterKill > 0));
      await node.up();
      await until('the restarted broker back in every ISR', async () =>
        (await allStates()).every((parts) => parts.every((p) => p.isr.length === 3)),
      );

      // A partition off its leader: the old leader answers NOT_LEADER_OR_FOLLOWER to the sends in flight.
      const moved = await Promise.all(
        list.map(async (r) => {
          const p0 = (await partitionStates(r.kafka, r.topic))[0]!;
          await reassignPartition(
            cluster.brokers,
            r.topic,
            0,
            p0.replicas.filter((x) => x !== p0.leader),
          );
          return p0.leader;
        }),
      );
      await until('partition 0 reassigned off its leader', async () => {
        for (const [i, r] of list.entries()) {
          const q = (await partitionStates(r.kafka, r.topic))[0]!;
          if ((await reassignmentsInProgress(cluster.brokers, r.topic)).length > 0 || q.leader === moved[i])
            return false;
        }
        return true;
      });
      const ackedBefore = list.map((r) => r.acked.length);
      await until('every client has sends acknowledged after the reassignment', () =>
        list.every((r, i) => r.acked.length > (ackedBefore[i] ?? 0)),
      );
    } finally {
      // Also when a step above failed: the send loops must end, or the test process never exits.
      await Promise.all(stops.map((stop) => stop()));
    }
  },
  { timeout: 600_000 },
);
after(async () => {
  await cluster?.close();
});

for (const client of KAFKA_CLIENTS)
  describe(`producer on a leader failover (real 3-broker cluster, ${client})`, () => {
    test('every message an idempotent send acknowledged is in the topic after its leader is killed -9 mid-send and a partition is reassigned', {
      timeout: 420_000,
    }, async () => {
      const run = runs.get(client)!;
      assert.ok(
        run.during.some((p) => run.before.find((q) => q.partition === p.partition)?.leader !== p.leader),
        'a leader moved',
      );
      assert.ok(run.ackedAfterKill > 0, 'sends were acknowledged after the kill');
      const stored = await readBack(run.kafka, run.topic);
      const missing = run.acked.filter((v) => !stored.has(v));
      assert.deepEqual(
        missing.slice(0, 20),
        [],
        `${missing.length} of ${run.acked.length} acknowledged messages are not in the topic (${run.failedSends} sends failed)`,
      );
    });
  });
