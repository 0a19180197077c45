/** Topic and cluster administration through the library's KafkaJS-compatible Admin. */
import { explained } from '../errors.ts';
import { defaultReplicationFactor } from '../replication.ts';
import type { KafkaClientOptions, PartitionLag, PartitionState, TopicSpec } from '../types.ts';
import { KafkaJS, RdkafkaProducer } from './library.ts';
import { baseProperties, saslMechanismOf } from './options.ts';

type Admin = ReturnType<InstanceType<typeof KafkaJS.Kafka>['admin']>;

/** Runs `fn` with a fresh admin client, closed afterwards. */
export async function withAdmin<T>(client: KafkaClientOptions, fn: (admin: Admin) => Promise<T>): Promise<T> {
  const admin = new KafkaJS.Kafka({}).admin({ ...baseProperties(client, '-admin') });
  await explained(() => admin.connect(), saslMechanismOf(client));
  try {
    return await explained(() => fn(admin), saslMechanismOf(client));
  } finally {
    await admin.disconnect().catch(() => {});
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
      : defaultReplicationFactor(await brokerCount(client));
    await admin
      .createTopics({
        topics: missing.map((t) => ({
          topic: t.topic,
          numPartitions: t.numPartitions ?? 1,
          replicationFactor: t.replicationFactor ?? rf,
          configEntries: t.configEntries ?? [],
        })),
      })
      .catch((err: unknown) => {
        // Another process created it meanwhile: what we wanted.
        if (!/already exists/i.test(String((err as Error).message))) throw err;
      });
    // As kafkajs' waitForLeaders: a producer right after must find every partition led.
    const names = missing.map((t) => t.topic);
    const deadline = Date.now() + LEADERS_TIMEOUT_MS;
    for (;;) {
      const md = await admin.fetchTopicMetadata({ topics: names }).catch(() => undefined);
      if (md?.length === names.length && md.every((t) => t.partitions.every((p) => p.leader >= 0))) return;
      if (Date.now() > deadline) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  });
}

export const listTopics = (client: KafkaClientOptions): Promise<string[]> =>
  withAdmin(client, (admin) => admin.listTopics());

export const deleteTopics = (client: KafkaClientOptions, topics: string[]): Promise<void> =>
  withAdmin(client, (admin) => admin.deleteTopics({ topics }));

/** The brokers of the cluster, from a metadata request (the KafkaJS-style Admin does not list them). */
export async function brokerCount(client: KafkaClientOptions): Promise<number> {
  const props = baseProperties(client, '-metadata');
  const producer = new RdkafkaProducer(props);
  const timeout = Number(props['socket.connection.setup.timeout.ms']) + 2_000;
  try {
    await explained(
      () =>
        new Promise<void>((resolve, reject) => {
          producer.connect({ timeout, allTopics: false }, (err) => (err ? reject(err) : resolve()));
        }),
      saslMechanismOf(client),
    );
    const md = await new Promise<{ brokers: unknown[] }>((resolve, reject) => {
      producer.getMetadata({ timeout, allTopics: false }, (err, data) => (err ? reject(err) : resolve(data)));
    });
    return md.brokers.length;
  } finally {
    await new Promise<void>((resolve) => producer.disconnect(() => resolve()));
  }
}

export const partitionStates = (client: KafkaClientOptions, topic: string): Promise<PartitionState[]> =>
  withAdmin(client, async (admin) => {
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    return (md[0]?.partitions ?? [])
      .map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
      .sort((a, b) => a.partition - b.partition);
  });

export const fetchConsumerLag = (client: KafkaClientOptions, groupId: string, topic: string): Promise<PartitionLag[]> =>
  withAdmin(client, async (admin) => {
    const [ends, groups] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
    ]);
    const committed = new Map<number, string>();
    for (const p of groups.find((g) => g.topic === topic)?.partitions ?? []) committed.set(p.partition, p.offset);
    return ends
      .map((e) => {
        const c = committed.get(e.partition) ?? '-1';
        const from = Number(c) >= 0 ? Number(c) : Number(e.low);
        return { partition: e.partition, committed: c, highWatermark: e.high, lag: Math.max(0, Number(e.high) - from) };
      })
      .sort((a, b) => a.partition - b.partition);
  });
