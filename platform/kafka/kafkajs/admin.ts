import { explained } from '../errors.ts';
import { defaultReplicationFactor } from '../replication.ts';
import type { PartitionState, TopicSpec } from '../types.ts';
import type { Kafkajs } from './client.ts';

export async function ensureTopics(kafka: Kafkajs, topics: TopicSpec[]): Promise<void> {
  const admin = kafka.admin();
  await explained(() => admin.connect());
  try {
    const existing = new Set(await admin.listTopics());
    const missing = topics.filter((t) => !existing.has(t.topic));
    if (missing.length > 0) {
      const rf = missing.every((t) => t.replicationFactor !== undefined)
        ? 1
        : defaultReplicationFactor((await admin.describeCluster()).brokers.length);
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map((t) => ({
          topic: t.topic,
          numPartitions: t.numPartitions ?? 1,
          replicationFactor: t.replicationFactor ?? rf,
          configEntries: t.configEntries ?? [],
        })),
      });
    }
  } finally {
    await admin.disconnect();
  }
}

export async function listTopics(kafka: Kafkajs): Promise<string[]> {
  const admin = kafka.admin();
  await explained(() => admin.connect());
  try {
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

export async function deleteTopics(kafka: Kafkajs, topics: string[]): Promise<void> {
  const admin = kafka.admin();
  await explained(() => admin.connect());
  try {
    await admin.deleteTopics({ topics });
  } finally {
    await admin.disconnect();
  }
}

/** The cluster id and broker count, or an error naming why the cluster is unreachable. */
export async function describeCluster(kafka: Kafkajs): Promise<{ clusterId: string; brokers: number }> {
  const admin = kafka.admin();
  await explained(() => admin.connect());
  try {
    const d = await admin.describeCluster();
    return { clusterId: d.clusterId, brokers: d.brokers.length };
  } finally {
    await admin.disconnect();
  }
}

/** Leader, replicas and in-sync replicas of each partition of `topic`, from fresh metadata. */
export async function partitionStates(kafka: Kafkajs, topic: string): Promise<PartitionState[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const md = await admin.fetchTopicMetadata({ topics: [topic] });
    return (md.topics[0]?.partitions ?? [])
      .map((p) => ({ partition: p.partitionId, leader: p.leader, replicas: p.replicas, isr: p.isr }))
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}

/** Moves one partition onto `replicas` (the first is the preferred leader) with the AlterPartitionReassignments API. */
export async function reassignPartition(
  kafka: Kafkajs,
  topic: string,
  partition: number,
  replicas: number[],
): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.alterPartitionReassignments({ topics: [{ topic, partitionAssignment: [{ partition, replicas }] }] });
  } finally {
    await admin.disconnect();
  }
}

/** Partitions of `topic` whose reassignment the controller has not finished. */
export async function reassignmentsInProgress(kafka: Kafkajs, topic: string): Promise<number[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    const r = await admin.listPartitionReassignments({});
    return r.topics.filter((t) => t.topic === topic).flatMap((t) => t.partitions.map((p) => p.partitionIndex));
  } finally {
    await admin.disconnect();
  }
}
