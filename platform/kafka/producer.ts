import type { KafkaClient, Producer, ProducerOptions } from './types.ts';

/**
 * An idempotent producer that waits for acks from all in-sync replicas. The partitioner hashes the key with murmur2
 * like the Java client, so a key lands on the same partition whichever client produced it.
 */
export const createIdempotentProducer = (kafka: KafkaClient, options: ProducerOptions = {}): Producer =>
  kafka.createIdempotentProducer(options);
