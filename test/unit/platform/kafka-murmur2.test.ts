/**
 * The producer's partitioner hash (platform/kafka/murmur2.ts) is Kafka's murmur2: the Java client's own test vectors,
 * and the library's BigInt copy (what its `compatibilityPartitioner` computes) on random keys of every length mod 4.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { murmur2 as libraryMurmur2 } from '@platformatic/kafka';
import { Rng } from '../../../fuzz/rng.ts';
import { keyHash, murmur2 } from '../../../platform/kafka/murmur2.ts';

describe('murmur2, the partitioner hash', () => {
  it("gives the Java client's values (Kafka's UtilsTest)", () => {
    const cases: [string, number][] = [
      ['21', -973932308],
      ['foobar', -790332482],
      ['a-little-bit-long-string', -985981536],
      ['a-little-bit-longer-string', -1486304829],
      ['lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8', -58897971],
      ['abc', 479470107],
    ];
    for (const [key, hash] of cases) assert.equal(murmur2(Buffer.from(key)), hash, key);
  });

  it("equals the library's murmur2 on random keys of 0 to 80 bytes, so keys keep their partitions", () => {
    const rng = new Rng(36);
    for (let i = 0; i < 2_000; i++) {
      const key = rng.bytes(i % 81);
      assert.equal(murmur2(key), libraryMurmur2(key), key.toString('hex'));
      assert.equal(keyHash(key), libraryMurmur2(key) & 0x7fffffff);
    }
  });
});
