/**
 * RFC 6962 / RFC 9162 Merkle tree hashing and proofs, over SHA-256 with domain separation: a leaf is
 * SHA-256(0x00 || data), a node SHA-256(0x01 || left || right). Proofs are built from the hashes of the subtrees
 * they need (`ranges` below say which), so the same code serves an in-memory tree and one kept in ClickHouse.
 * Sizes and indices are plain numbers: exact up to 2^53 leaves.
 */
import { createHash, hash } from 'node:crypto';

export type Hash = Buffer;

// One-shot hashing over a scratch buffer: the writer hashes two of these per row (crypto.hash ~2x createHash).
const leafInput = Buffer.alloc(33);
const nodeInput = Buffer.alloc(65);
nodeInput[0] = 1;

export function leafHash(data: Uint8Array): Hash {
  if (data.length !== 32) return createHash('sha256').update(Buffer.of(0)).update(data).digest();
  leafInput.set(data, 1);
  return hash('sha256', leafInput, 'buffer');
}

export function nodeHash(left: Uint8Array, right: Uint8Array): Hash {
  if (left.length !== 32 || right.length !== 32)
    return createHash('sha256').update(Buffer.of(1)).update(left).update(right).digest();
  nodeInput.set(left, 1);
  nodeInput.set(right, 33);
  return hash('sha256', nodeInput, 'buffer');
}

/** The hash of the empty tree: SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = createHash('sha256').digest();

/** The largest power of two smaller than n (n > 1). */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/** Exact for every safe integer (bitwise tests stop at 2^31). */
export function isPowerOfTwo(n: number): boolean {
  return n >= 1 && 2 ** Math.round(Math.log2(n)) === n;
}

/** A run of leaves [start, end) whose subtree hash a proof carries. */
export interface LeafRange {
  start: number;
  end: number;
}

/** The subtrees PATH(m, D[0:n]) is made of, from the leaf up (RFC 6962 2.1.1). */
export function inclusionRanges(index: number, size: number): LeafRange[] {
  if (!(index >= 0 && index < size)) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const out: LeafRange[] = [];
  const walk = (m: number, start: number, n: number): void => {
    if (n === 1) return;
    const k = splitPoint(n);
    if (m < k) {
      walk(m, start, k);
      out.push({ start: start + k, end: start + n });
    } else {
      walk(m - k, start + k, n - k);
      out.push({ start, end: start + k });
    }
  };
  walk(index, 0, size);
  return out;
}

/** The subtrees PROOF(m, D[0:n]) is made of (RFC 6962 2.1.2), for 0 < m <= n. */
export function consistencyRanges(first: number, second: number): LeafRange[] {
  if (!(first > 0 && first <= second)) throw new RangeError(`no consistency proof from ${first} to ${second}`);
  const out: LeafRange[] = [];
  const sub = (m: number, start: number, n: number, whole: boolean): void => {
    if (m === n) {
      if (!whole) out.push({ start, end: start + n });
      return;
    }
    const k = splitPoint(n);
    if (m <= k) {
      sub(m, start, k, whole);
      out.push({ start: start + k, end: start + n });
    } else {
      sub(m - k, start + k, n - k, false);
      out.push({ start, end: start + k });
    }
  };
  if (first < second) sub(first, 0, second, true);
  return out;
}

/** A perfect subtree: `2^level` leaves starting at `index * 2^level`. */
export interface NodeId {
  level: number;
  index: number;
}

/** The perfect subtrees whose hashes give the hash of [start, end) (RFC 6962's split, left to right). */
export function perfectParts(range: LeafRange): NodeId[] {
  const out: NodeId[] = [];
  const walk = (start: number, n: number): void => {
    if (n === 0) return;
    if (isPowerOfTwo(n) && start % n === 0) {
      out.push({ level: Math.log2(n), index: start / n });
      return;
    }
    const k = splitPoint(n);
    walk(start, k);
    walk(start + k, n - k);
  };
  walk(range.start, range.end - range.start);
  return out;
}

/** The hash of [start, end) from the hashes of its perfect parts (`node` looks each one up). */
export function rangeHash(range: LeafRange, node: (id: NodeId) => Hash): Hash {
  const walk = (start: number, n: number): Hash => {
    if (isPowerOfTwo(n) && start % n === 0) return node({ level: Math.log2(n), index: start / n });
    const k = splitPoint(n);
    return nodeHash(walk(start, k), walk(start + k, n - k));
  };
  if (range.end <= range.start) throw new RangeError('empty range');
  return walk(range.start, range.end - range.start);
}

const odd = (x: number) => x % 2 === 1;
const half = (x: number) => Math.floor(x / 2);

/** RFC 9162 2.1.3.2: does `proof` take the leaf at `index` to `root` in a tree of `size`? */
export function verifyInclusion(leaf: Hash, index: number, size: number, proof: readonly Hash[], root: Hash): boolean {
  if (!(Number.isSafeInteger(index) && Number.isSafeInteger(size) && index >= 0 && index < size)) return false;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      r = nodeHash(p, r);
      if (!odd(fn)) {
        while (!(odd(fn) || fn === 0)) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else r = nodeHash(r, p);
    fn = half(fn);
    sn = half(sn);
  }
  return sn === 0 && r.equals(root);
}

/** RFC 9162 2.1.4.2: is the tree of `second` leaves (`secondRoot`) an append-only extension of `first`? */
export function verifyConsistency(
  first: number,
  second: number,
  proof: readonly Hash[],
  firstRoot: Hash,
  secondRoot: Hash,
): boolean {
  if (!(Number.isSafeInteger(first) && Number.isSafeInteger(second) && first >= 0 && first <= second)) return false;
  if (first === second) return proof.length === 0 && firstRoot.equals(secondRoot);
  if (first === 0) return proof.length === 0;
  if (proof.length === 0) return false;
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (odd(fn)) {
    fn = half(fn);
    sn = half(sn);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (odd(fn) || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      if (!odd(fn)) {
        while (!(odd(fn) || fn === 0)) {
          fn = half(fn);
          sn = half(sn);
        }
      }
    } else sr = nodeHash(sr, c);
    fn = half(fn);
    sn = half(sn);
  }
  return fr.equals(firstRoot) && sr.equals(secondRoot) && sn === 0;
}
