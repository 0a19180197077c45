/** Topic and cluster administration, whichever client `kafka` is. */
import type { KafkaClient, PartitionState, TopicSpec } from './types.ts';

export { defaultReplicationFactor } from './replication.ts';

/** Creates the topics that do not exist yet; existing ones are left as they are. */
export const ensureTopics = (kafka: KafkaClient, topics: TopicSpec[]): Promise<void> => kafka.ensureTopics(topics);

export const deleteTopics = (kafka: KafkaClient, topics: string[]): Promise<void> => kafka.deleteTopics(topics);

/** The cluster id and broker count, or an error naming why the cluster is unreachable. */
export const describeCluster = (kafka: KafkaClient): Promise<{ clusterId: string; brokers: number }> =>
  kafka.describeCluster();

/** Leader, replicas and in-sync replicas of each partition of `topic`, from fresh metadata. */
export const partitionStates = (kafka: KafkaClient, topic: string): Promise<PartitionState[]> =>
  kafka.partitionStates(topic);
