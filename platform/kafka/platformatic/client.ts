/**
 * The @platformatic/kafka implementation of the Kafka interface (needs Node >= 22.22). Its Admin has no partition
 * reassignment API (2.12.1), so the chaos tool's reassignments go through the kafkajs implementation.
 */
import { createKafkajsClient } from '../kafkajs/client.ts';
import { simpleConsumerOf } from '../simple-consumer.ts';
import type { KafkaClient, KafkaClientOptions } from '../types.ts';
import * as admin from './admin.ts';
import { createBatchConsumer } from './batch-consumer.ts';
import { createIdempotentProducer } from './producer.ts';

export function createPlatformaticClient(options: KafkaClientOptions): KafkaClient {
  let kafkajs: KafkaClient | undefined;
  const reassigner = () => {
    kafkajs ??= createKafkajsClient({ ...options, client: 'kafkajs' });
    return kafkajs;
  };
  return {
    kind: 'platformatic',
    createIdempotentProducer: (o) => createIdempotentProducer(options, o),
    createSimpleConsumer: async (groupId, topic) =>
      simpleConsumerOf(await createBatchConsumer(options, { groupId, topic })),
    createBatchConsumer: (o) => createBatchConsumer(options, o),
    ensureTopics: (topics) => admin.ensureTopics(options, topics),
    listTopics: () => admin.listTopics(options),
    deleteTopics: (topics) => admin.deleteTopics(options, topics),
    describeCluster: () => admin.describeCluster(options),
    partitionStates: (topic) => admin.partitionStates(options, topic),
    reassignPartition: (topic, partition, replicas) => reassigner().reassignPartition(topic, partition, replicas),
    reassignmentsInProgress: (topic) => reassigner().reassignmentsInProgress(topic),
    fetchConsumerLag: (groupId, topic) => admin.fetchConsumerLag(options, groupId, topic),
  };
}
