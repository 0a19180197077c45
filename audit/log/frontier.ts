/**
 * Appending to an RFC 6962 tree with only its right edge in memory: the roots of the perfect subtrees that make up
 * the tree (one per set bit of its size, largest first). Each appended leaf yields the complete nodes it finishes,
 * which the store keeps; the root is the frontier folded from the right.
 */
import { type Hash, leafHash, nodeHash } from './rfc6962.ts';

export interface StoredNode {
  level: number;
  index: number;
  hash: Hash;
}

export class Frontier {
  constructor(
    public size = 0,
    /** Perfect subtree roots, left to right (largest first). */
    private readonly roots: Hash[] = [],
  ) {}

  /** Appends one leaf (its data: a 32-byte entry hash); returns the leaf and every node it completes. */
  append(data: Uint8Array): StoredNode[] {
    const index = this.size;
    let hash = leafHash(data);
    const nodes: StoredNode[] = [{ level: 0, index, hash }];
    let level = 0;
    let at = index;
    // Every trailing 1 bit of the index closes a perfect subtree one level up.
    while (at % 2 === 1) {
      hash = nodeHash(this.roots.pop()!, hash);
      level += 1;
      at = Math.floor(at / 2);
      nodes.push({ level, index: at, hash });
    }
    this.roots.push(hash);
    this.size += 1;
    return nodes;
  }

  root(): Hash | undefined {
    if (this.roots.length === 0) return undefined;
    let r = this.roots[this.roots.length - 1]!;
    for (let i = this.roots.length - 2; i >= 0; i--) r = nodeHash(this.roots[i]!, r);
    return r;
  }

  clone(): Frontier {
    return new Frontier(this.size, [...this.roots]);
  }
}
