/**
 * The @platformatic/kafka implementation of the Kafka interface (needs Node >= 22.22), at the version package.json
 * pins: another one is refused at load, in one line.
 */
import { assertPinned, installedVersion } from '../pinned.ts';
import { simpleConsumerOf } from '../simple-consumer.ts';
import type { KafkaClient, KafkaClientOptions } from '../types.ts';
import * as admin from './admin.ts';
import { createBatchConsumer } from './batch-consumer.ts';
import { createIdempotentProducer } from './producer.ts';

/** The version tooltrail is tested with (package.json pins it). */
export const PLATFORMATIC_VERSION = '2.12.1';
assertPinned(
  '@platformatic/kafka',
  installedVersion('@platformatic/kafka', (s) => import.meta.resolve(s)),
  PLATFORMATIC_VERSION,
);

export function createPlatformaticClient(options: KafkaClientOptions): KafkaClient {
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
    fetchConsumerLag: (groupId, topic) => admin.fetchConsumerLag(options, groupId, topic),
    describeGroup: (groupId) => admin.describeGroup(options, groupId),
  };
}
