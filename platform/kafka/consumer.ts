/** Consumers and group lag, whichever client `kafka` is. */
import type {
  BatchConsumer,
  BatchConsumerOptions,
  GroupDescription,
  KafkaClient,
  PartitionLag,
  SimpleConsumer,
} from './types.ts';

/** A consumer-group member reading `topic` from the beginning. The ingest builds its own batch consumer. */
export const createSimpleConsumer = (kafka: KafkaClient, groupId: string, topic: string): Promise<SimpleConsumer> =>
  kafka.createSimpleConsumer(groupId, topic);

/** A consumer-group member that hands whole fetched batches to its handler, with manual offset control. */
export const createBatchConsumer = (kafka: KafkaClient, options: BatchConsumerOptions): Promise<BatchConsumer> =>
  kafka.createBatchConsumer(options);

/** The group's lag per partition of `topic`: high watermark minus committed offset (or minus the log start). */
export const fetchConsumerLag = (kafka: KafkaClient, groupId: string, topic: string): Promise<PartitionLag[]> =>
  kafka.fetchConsumerLag(groupId, topic);

/** The group's state and member count (benches wait for STABLE before timing a consumer's work). */
export const describeGroup = (kafka: KafkaClient, groupId: string): Promise<GroupDescription> =>
  kafka.describeGroup(groupId);
