/**
 * The level each client's producer compresses at, per codec: comparisons that must match the collector's output
 * (bench/anchor) read it here.
 */
import type { KafkaClientKind, KafkaCompression } from './types.ts';

export const COMPRESSION_LEVELS: Record<KafkaClientKind, Partial<Record<KafkaCompression, number>>> = {
  // The library compresses at zlib's defaults and does not let a caller change them (docs/performance.md).
  platformatic: { gzip: 6, zstd: 3 },
};

/** The level `client` compresses `codec` at; undefined where the codec has none (lz4, none). */
export function compressionLevel(client: KafkaClientKind, codec: KafkaCompression): number | undefined {
  return COMPRESSION_LEVELS[client][codec];
}
