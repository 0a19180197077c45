/**
 * The Merkle tree stored as tiles (C2SP tlog-tiles): a tile at level L holds up to 256 consecutive hashes of tree
 * level 8L (level 0: the leaf hashes; level 1: the roots of 256-leaf subtrees, ...), tile index N holding hashes
 * [256N, 256N + width). A full tile (256) is written once; a partial one (the right edge) is written again, wider,
 * as the tree grows, and readers take the widest. Any perfect subtree's hash is computed from one tile: at most 255
 * node hashes, never stored. The writer keeps only each level's partial tile in memory (`TileEdge`).
 */
import { Buffer } from 'node:buffer';
import { subtreeRoots, type TreeHasher } from './hashes.ts';
import { EMPTY_ROOT, type Hash, type NodeId, nodeHash, rangeHash } from './rfc6962.ts';

export const TILE_HEIGHT = 8;
export const TILE_WIDTH = 2 ** TILE_HEIGHT;
const HASH = 32;

export interface Tile {
  level: number;
  index: number;
  /** Hashes held, 1..256 (fewer = a partial tile). */
  width: number;
  /** `width` SHA-256 hashes, 32 bytes each. */
  hashes: Buffer;
}

/** The tile (level, index) holding the hashes a perfect subtree folds, and where they lie in it. */
export function tileOf(node: NodeId): { level: number; index: number; from: number; count: number } {
  const level = Math.floor(node.level / TILE_HEIGHT);
  const count = 2 ** (node.level % TILE_HEIGHT);
  const first = node.index * count;
  return { level, index: Math.floor(first / TILE_WIDTH), from: first % TILE_WIDTH, count };
}

/** A perfect subtree's hash from the tile that holds it; undefined when the tile is missing or too narrow. */
export function nodeFromTile(
  node: NodeId,
  tile: (level: number, index: number) => Buffer | undefined,
): Hash | undefined {
  const t = tileOf(node);
  const hashes = tile(t.level, t.index);
  if (!hashes || hashes.length < (t.from + t.count) * HASH) return undefined;
  const part = hashes.subarray(t.from * HASH, (t.from + t.count) * HASH);
  if (t.count === 1) return Buffer.from(part);
  return foldPerfect(part);
}

function foldPerfect(hashes: Buffer): Hash {
  let level: Hash[] = [];
  for (let i = 0; i < hashes.length; i += HASH) level.push(hashes.subarray(i, i + HASH));
  while (level.length > 1) {
    const next: Hash[] = [];
    for (let i = 0; i < level.length; i += 2) next.push(nodeHash(level[i]!, level[i + 1]!));
    level = next;
  }
  return Buffer.from(level[0]!);
}

/** Hashes at tree level 8L of a tree of `size` leaves: how many complete ones exist. */
export function countAt(size: number, level: number): number {
  return Math.floor(size / TILE_WIDTH ** level);
}

/**
 * The right edge of a tree in tiles: its size and, per level, the hashes of its partial tile (fewer than 256). All a
 * writer needs to append, and to compute the root.
 */
export class TileEdge {
  constructor(
    public size = 0,
    /** Per level, the partial tile's hashes (`countAt(size, level) % 256` of them). */
    private readonly partial: Buffer[] = [],
  ) {}

  clone(): TileEdge {
    return new TileEdge(this.size, [...this.partial]);
  }

  /**
   * Appends leaf hashes (32 bytes each) and returns the tiles to store: every tile this completes, and the partial
   * tile of each level that grew (written wider than before).
   */
  append(leafHashes: Buffer, hasher?: TreeHasher): Tile[] {
    if (leafHashes.length % HASH !== 0) throw new RangeError('leaf hashes must be 32 bytes each');
    const tiles: Tile[] = [];
    let incoming = leafHashes;
    for (let level = 0; incoming.length > 0; level++) {
      const before = countAt(this.size, level);
      const index = Math.floor(before / TILE_WIDTH);
      const prev = this.partial[level] ?? Buffer.alloc(0);
      const all = prev.length > 0 ? Buffer.concat([prev, incoming]) : incoming;
      const full = Math.floor(all.length / (HASH * TILE_WIDTH));
      for (let k = 0; k < full; k++)
        tiles.push({
          level,
          index: index + k,
          width: TILE_WIDTH,
          hashes: all.subarray(k * HASH * TILE_WIDTH, (k + 1) * HASH * TILE_WIDTH),
        });
      const rest = all.subarray(full * HASH * TILE_WIDTH);
      if (rest.length > 0) tiles.push({ level, index: index + full, width: rest.length / HASH, hashes: rest });
      this.partial[level] = Buffer.from(rest);
      incoming =
        full > 0 ? subtreeRoots(all.subarray(0, full * HASH * TILE_WIDTH), TILE_HEIGHT, hasher) : Buffer.alloc(0);
    }
    this.size += leafHashes.length / HASH;
    return tiles;
  }

  /** The tile of `level` at `index` as far as this edge knows it: only the partial tiles of the right edge. */
  private tile(level: number, index: number): Buffer | undefined {
    return index === Math.floor(countAt(this.size, level) / TILE_WIDTH) ? this.partial[level] : undefined;
  }

  /** The root of the tree (RFC 6962 MTH), from the partial tiles only. */
  root(): Hash {
    if (this.size === 0) return EMPTY_ROOT;
    const range = { start: 0, end: this.size };
    return rangeHash(range, (n) => {
      const h = nodeFromTile(n, (l, i) => this.tile(l, i));
      if (!h) throw new Error(`tile edge of ${this.size} leaves lacks node ${n.level}/${n.index}`);
      return h;
    });
  }

  /** The partial tiles of a tree of `size` leaves: what a restarted writer reads back to rebuild its edge. */
  static partialTiles(size: number): { level: number; index: number; width: number }[] {
    const out: { level: number; index: number; width: number }[] = [];
    for (let level = 0; countAt(size, level) > 0; level++) {
      const count = countAt(size, level);
      if (count % TILE_WIDTH > 0) out.push({ level, index: Math.floor(count / TILE_WIDTH), width: count % TILE_WIDTH });
    }
    return out;
  }
}
