/** The @confluentinc/kafka-javascript implementation of the Kafka interface (librdkafka; optional native build). */

import { simpleConsumerOf } from '../simple-consumer.ts';
import type { KafkaClient, KafkaClientOptions } from '../types.ts';
import * as admin from './admin.ts';
import { createBatchConsumer } from './batch-consumer.ts';
import { createIdempotentProducer } from './producer.ts';

const notYet = (what: string) => () => Promise.reject(new Error(`confluent client: ${what} is not implemented`));

export function createConfluentClient(options: KafkaClientOptions): KafkaClient {
  return {
    kind: 'confluent',
    createIdempotentProducer: (o) => createIdempotentProducer(options, o),
    createSimpleConsumer: async (groupId, topic) =>
      simpleConsumerOf(await createBatchConsumer(options, { groupId, topic })),
    createBatchConsumer: (o) => createBatchConsumer(options, o),
    ensureTopics: (topics) => admin.ensureTopics(options, topics),
    listTopics: () => admin.listTopics(options),
    deleteTopics: (topics) => admin.deleteTopics(options, topics),
    describeCluster: async () => ({ clusterId: '', brokers: await admin.brokerCount(options) }),
    partitionStates: (topic) => admin.partitionStates(options, topic),
    reassignPartition: notYet('reassignPartition'),
    reassignmentsInProgress: notYet('reassignmentsInProgress'),
    fetchConsumerLag: (groupId, topic) => admin.fetchConsumerLag(options, groupId, topic),
  };
}
