/**
 * Kafka's murmur2 (the Java client's `Utils.murmur2`), which its default partitioner applies to a message key: the
 * producer's partitioner, so a key lands where the Java client and librdkafka's murmur2 put it. In 32-bit integer
 * arithmetic: the library's own copy computes in BigInt, an allocation per step, per message.
 */
const SEED = 0x9747b28c;
const M = 0x5bd1e995;

/** The signed 32-bit murmur2 of `data`, as Java's `Utils.murmur2` returns it. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  let h = SEED ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k =
      (data[i] as number) |
      ((data[i + 1] as number) << 8) |
      ((data[i + 2] as number) << 16) |
      ((data[i + 3] as number) << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const rest = length & 3;
  if (rest > 0) {
    if (rest === 3) h ^= (data[whole + 2] as number) << 16;
    if (rest >= 2) h ^= (data[whole + 1] as number) << 8;
    h ^= data[whole] as number;
    h = Math.imul(h, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h | 0;
}

/** The partition hash of a key before the modulo: Java's `toPositive(murmur2(key))`. */
export const keyHash = (key: Uint8Array): number => murmur2(key) & 0x7fffffff;
