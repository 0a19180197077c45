import { Admin, ListOffsetTimestamps } from '@platformatic/kafka';
import { explained } from '../errors.ts';
import { defaultReplicationFactor } from '../replication.ts';
import type { GroupDescription, KafkaClientOptions, PartitionLag, PartitionState, TopicSpec } from '../types.ts';
import { absorbLateConnectionErrors, baseOptionsOf, saslMechanismOf } from './options.ts';

/** Runs `fn` with a fresh admin client, closed afterwards. */
export async function withAdmin<T>(client: KafkaClientOptions, fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new Admin(baseOptionsOf(client, '-admin'));
  absorbLateConnectionErrors(admin);
  try {
    return await explained(() => fn(admin), saslMechanismOf(client));
  } finally {
    await admin.close().catch(() => {});
  }
}

const LEADERS_TIMEOUT_MS = 10_000;

export function ensureTopics(client: KafkaClientOptions, topics: TopicSpec[]): Promise<void> {
  return withAdmin(client, async (admin) => {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length === 0) return;
    const rf = missing.every((t) => t.replicationFactor !== undefined)
      ? 1
      : defaultReplicationFactor((await admin.metadata({ topics: [] })).brokers.size);
    for (const t of missing) {
      await admin
        .createTopics({
          topics: [t.topic],
          partitions: t.numPartitions ?? 1,
          replicas: t.replicationFactor ?? rf,
          configs: (t.configEntries ?? []).map((c) => ({ name: c.name, value: c.value })),
        })
        .catch((err: unknown) => {
          // Another process created it meanwhile: what we wanted.
          if (!/TOPIC_ALREADY_EXISTS|already exists/i.test(JSON.stringify(err, Object.getOwnPropertyNames(err)))) {
            throw err;
          }
        });
    }
    // A producer right after must find every partition led.
    const names = missing.map((t) => t.topic);
    const deadline = Date.now() + LEADERS_TIMEOUT_MS;
    for (;;) {
      const md = await admin.metadata({ topics: names, forceUpdate: true }).catch(() => undefined);
      const led = md && names.every((n) => (md.topics.get(n)?.partitions ?? []).every((p) => p && p.leader >= 0));
      if (led || Date.now() > deadline) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}

export const listTopics = (client: KafkaClientOptions): Promise<string[]> =>
  withAdmin(client, (admin) => admin.listTopics());

export const deleteTopics = (client: KafkaClientOptions, topics: string[]): Promise<void> =>
  withAdmin(client, (admin) => admin.deleteTopics({ topics }));

export const describeCluster = (client: KafkaClientOptions): Promise<{ clusterId: string; brokers: number }> =>
  withAdmin(client, async (admin) => {
    const md = await admin.metadata({ topics: [], forceUpdate: true });
    return { clusterId: md.id, brokers: md.brokers.size };
  });

export const partitionStates = (client: KafkaClientOptions, topic: string): Promise<PartitionState[]> =>
  withAdmin(client, async (admin) => {
    const md = await admin.metadata({ topics: [topic], forceUpdate: true });
    return (md.topics.get(topic)?.partitions ?? [])
      .map((p, partition) => ({ partition, leader: p.leader, replicas: p.replicas, isr: p.isr }))
      .sort((a, b) => a.partition - b.partition);
  });

export const fetchConsumerLag = (client: KafkaClientOptions, groupId: string, topic: string): Promise<PartitionLag[]> =>
  withAdmin(client, async (admin) => {
    const md = await admin.metadata({ topics: [topic] });
    const count = md.topics.get(topic)?.partitionsCount ?? 0;
    const partitions = Array.from({ length: count }, (_, i) => i);
    const offsets = (timestamp: bigint) =>
      admin.listOffsets({
        topics: [{ name: topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex, timestamp })) }],
      });
    const [high, low, groups] = await Promise.all([
      offsets(ListOffsetTimestamps.LATEST),
      offsets(ListOffsetTimestamps.EARLIEST),
      admin.listConsumerGroupOffsets({
        groups: [{ groupId, topics: [{ name: topic, partitionIndexes: partitions }] }],
      }),
    ]);
    const byPartition = (t: { partitions: { partitionIndex: number; offset: bigint }[] }[] | undefined) =>
      new Map((t?.[0]?.partitions ?? []).map((p) => [p.partitionIndex, p.offset]));
    const highs = byPartition(high);
    const lows = byPartition(low);
    const committed = new Map<number, bigint>();
    for (const p of groups[0]?.topics.find((t) => t.name === topic)?.partitions ?? []) {
      committed.set(p.partitionIndex, p.committedOffset);
    }
    return partitions.map((partition) => {
      const c = committed.get(partition) ?? -1n;
      const h = highs.get(partition) ?? 0n;
      const from = c >= 0n ? c : (lows.get(partition) ?? 0n);
      return { partition, committed: String(c), highWatermark: String(h), lag: Math.max(0, Number(h - from)) };
    });
  });

export const describeGroup = (client: KafkaClientOptions, groupId: string): Promise<GroupDescription> =>
  withAdmin(client, async (admin) => {
    const g = (await admin.describeGroups({ groups: [groupId] })).get(groupId);
    // The broker names classic groups' states in mixed case (Stable), the consumer protocol's in upper case.
    return { state: (g?.state ?? 'DEAD').toUpperCase(), members: g?.members.size ?? 0 };
  });
