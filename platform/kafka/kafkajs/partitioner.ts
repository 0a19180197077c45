/**
 * The producer's partitioner: kafkajs' default (murmur2 of the key, as the Java client, so a key lands on the same
 * partition whichever client produced it), with the hash computed in 32-bit integer arithmetic straight from an
 * ASCII string key. kafkajs hashes through its 64-bit Long emulation after copying the key into a Buffer, which
 * cost ~5% of the collector's CPU (one key per trace). Same partition for every key; other keys go to kafkajs'.
 */
import kafkajs from 'kafkajs';

const { Partitioners } = kafkajs;

const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** Kafka's murmur2 (org.apache.kafka.common.utils.Utils.murmur2) of an ASCII string's bytes, as a signed int32. */
export function murmur2Ascii(key: string): number {
  const length = key.length;
  let h = SEED ^ length;
  const length4 = length >>> 2;
  for (let i = 0; i < length4; i++) {
    const i4 = i * 4;
    let k =
      key.charCodeAt(i4) |
      (key.charCodeAt(i4 + 1) << 8) |
      (key.charCodeAt(i4 + 2) << 16) |
      (key.charCodeAt(i4 + 3) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M);
    h ^= k;
  }
  const tail = length & ~3;
  const rest = length & 3;
  if (rest === 3) h ^= key.charCodeAt(tail + 2) << 16;
  if (rest >= 2) h ^= key.charCodeAt(tail + 1) << 8;
  if (rest >= 1) {
    h ^= key.charCodeAt(tail);
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

type PartitionerArgs = Parameters<ReturnType<typeof Partitioners.DefaultPartitioner>>[0];

/** A kafkajs `createPartitioner`: the default partitioner's choices, ASCII string keys hashed without copies. */
export function createKeyPartitioner(): (args: PartitionerArgs) => number {
  const fallback = Partitioners.DefaultPartitioner();
  return (args) => {
    const { message, partitionMetadata } = args;
    const key = message.key;
    if (typeof key === 'string' && (message.partition === null || message.partition === undefined) && isAscii(key)) {
      return (murmur2Ascii(key) & 0x7fffffff) % partitionMetadata.length;
    }
    return fallback(args);
  };
}
