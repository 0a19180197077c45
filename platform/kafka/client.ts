/**
 * The one place a Kafka client is chosen: kafkajs (platform/kafka/kafkajs/) or @platformatic/kafka
 * (platform/kafka/platformatic/), by the caller's `client` option, else TOOLTRAIL_KAFKA_CLIENT (choice.ts).
 */
import { kafkaClientKindOf } from './choice.ts';
import { createKafkajsClient } from './kafkajs/client.ts';
import { createPlatformaticClient } from './platformatic/client.ts';
import type { KafkaClient, KafkaClientOptions } from './types.ts';

export type { KafkaClient } from './types.ts';

export function createKafkaClient(options: KafkaClientOptions): KafkaClient {
  const kind = options.client ?? kafkaClientKindOf(process.env);
  return kind === 'platformatic' ? createPlatformaticClient(options) : createKafkajsClient(options);
}
