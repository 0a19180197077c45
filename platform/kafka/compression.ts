/**
 * The level each client's producer compresses at, per codec: the clients read theirs from here where they can set
 * it, and comparisons that must match the collector's output (bench/anchor) read it too.
 */
import type { KafkaClientKind, KafkaCompression } from './types.ts';

export const COMPRESSION_LEVELS: Record<KafkaClientKind, Partial<Record<KafkaCompression, number>>> = {
  // Set by platform/kafka/kafkajs/producer.ts (kafkajs has no other codec built in).
  kafkajs: { gzip: 1 },
  // The library compresses at zlib's defaults, which it does not let a caller change.
  platformatic: { gzip: 6, zstd: 3 },
  // Set by platform/kafka/confluent/producer.ts (librdkafka's compression.level).
  confluent: { gzip: 1, zstd: 1 },
};

/** The level `client` compresses `codec` at; undefined where the codec has none (lz4, none). */
export function compressionLevel(client: KafkaClientKind, codec: KafkaCompression): number | undefined {
  return COMPRESSION_LEVELS[client][codec];
}
