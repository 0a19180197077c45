/**
 * RFC 6962 hashing in batches: the leaves of a whole batch in one call, a tile's levels one call each, by the native
 * hasher (native-core/) when it is built, else node:crypto one hash at a time (the same bytes; rfc6962.ts is the
 * reference, test/unit/audit/tiles.test.ts compares both).
 */
import { Buffer } from 'node:buffer';
import { type NativeRowHasher, nativeRowHasher } from '../native-core/index.ts';
import { leafHash, nodeHash } from './rfc6962.ts';

/** The native hasher when built (`null`: node:crypto; tests and benches compare the two). */
export type TreeHasher = Pick<NativeRowHasher, 'leafHashes' | 'nodeHashes'> | null;
const defaultHasher: TreeHasher = nativeRowHasher ?? null;

/** SHA-256(0x00 || entry) of each 32-byte entry, in a new buffer of the same length. */
export function leafHashes(entries: Buffer, hasher: TreeHasher = defaultHasher): Buffer {
  if (entries.length % 32 !== 0) throw new RangeError('entries must be 32-byte hashes');
  const out = Buffer.allocUnsafe(entries.length);
  if (hasher) {
    if (hasher.leafHashes(entries, out) !== 0) throw new Error('the native hasher failed on the leaves');
    return out;
  }
  for (let i = 0; i < entries.length; i += 32) leafHash(entries.subarray(i, i + 32)).copy(out, i);
  return out;
}

/**
 * The roots of consecutive perfect subtrees of 2^height hashes each (`hashes` holds a multiple of them), folded one
 * level per pass into a copy; `hashes` is left as it was.
 */
export function subtreeRoots(hashes: Buffer, height: number, hasher: TreeHasher = defaultHasher): Buffer {
  const span = 32 * 2 ** height;
  if (hashes.length % span !== 0) throw new RangeError(`hashes must be whole subtrees of ${2 ** height}`);
  let level = Buffer.from(hashes);
  for (let h = 0; h < height; h++) {
    const pairs = level.subarray(0, level.length);
    const out = level.subarray(0, level.length / 2);
    if (hasher) {
      if (hasher.nodeHashes(pairs, out) !== 0) throw new Error('the native hasher failed on the nodes');
    } else
      for (let i = 0; i < out.length; i += 32)
        nodeHash(pairs.subarray(2 * i, 2 * i + 32), pairs.subarray(2 * i + 32, 2 * i + 64)).copy(out, i);
    level = out;
  }
  return level;
}
