/**
 * The tree as tiles (audit/log/tiles.ts) against RFC 6962 computed from its definitions here: the root after any
 * sequence of appends, every perfect subtree a proof may ask for computed from the tiles written, full tiles written
 * once, an edge rebuilt from the stored partial tiles continuing the same tree; and the batch hashers (native and
 * node:crypto) giving the same bytes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { leafHashes, subtreeRoots } from '../../../audit/log/hashes.ts';
import { nodeFromTile, TILE_WIDTH, type Tile, TileEdge } from '../../../audit/log/tiles.ts';
import { nativeRowHasher } from '../../../audit/native-core/index.ts';

const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const split = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
/** MTH over leaf hashes (already SHA-256(0x00 || entry)), RFC 6962 2.1. */
function mth(leaves: readonly Buffer[]): Buffer {
  if (leaves.length === 0) return sha();
  if (leaves.length === 1) return leaves[0]!;
  const s = split(leaves.length);
  return sha(Buffer.from([1]), mth(leaves.slice(0, s)), mth(leaves.slice(s)));
}

/** Deterministic 32-byte entries. */
const entry = (i: number) => sha(Buffer.from(`entry ${i}`));
const leafOf = (e: Buffer) => sha(Buffer.from([0]), e);

/** The widest stored copy of each tile, as readers take them. */
function widest(tiles: readonly Tile[]): Map<string, Buffer> {
  const out = new Map<string, Buffer>();
  for (const t of tiles) {
    const k = `${t.level}/${t.index}`;
    const known = out.get(k);
    if (!known || known.length < t.hashes.length) out.set(k, Buffer.from(t.hashes));
  }
  return out;
}

describe('the tree as tiles', () => {
  for (const hasher of [nativeRowHasher ?? null, null]) {
    const label = hasher ? 'native hasher' : 'node:crypto';
    it(`holds the RFC 6962 root after every append, whatever the chunk sizes (${label})`, () => {
      const edge = new TileEdge();
      const leaves: Buffer[] = [];
      let seed = 7;
      const next = () => {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        return seed;
      };
      while (leaves.length < 1400) {
        const n = [0, 1, 2, 255, 256, 257, next() % 40][next() % 7]!;
        const chunk = Array.from({ length: n }, (_, i) => leafOf(entry(leaves.length + i)));
        edge.append(Buffer.concat(chunk), hasher);
        leaves.push(...chunk);
        assert.equal(edge.size, leaves.length);
        assert.equal(edge.root().toString('hex'), mth(leaves).toString('hex'), `${leaves.length} leaves`);
      }
    });
  }

  it('writes each full tile once and every partial tile wider than the last, and its tiles give every perfect subtree', () => {
    const edge = new TileEdge();
    const tiles: Tile[] = [];
    const leaves: Buffer[] = [];
    // 300 appends of 230 leaves: 69,000 leaves, so level 1 has a full tile and level 2 a partial one.
    for (let a = 0; a < 300; a++) {
      const chunk = Array.from({ length: 230 }, (_, i) => leafOf(entry(leaves.length + i)));
      tiles.push(...edge.append(Buffer.concat(chunk)));
      leaves.push(...chunk);
    }
    const full = tiles.filter((t) => t.width === TILE_WIDTH).map((t) => `${t.level}/${t.index}`);
    assert.equal(new Set(full).size, full.length, 'no full tile written twice');
    assert.deepEqual([...new Set(tiles.map((t) => t.level))], [0, 1, 2]);
    const byTile = new Map<string, number[]>();
    for (const t of tiles)
      byTile.set(`${t.level}/${t.index}`, [...(byTile.get(`${t.level}/${t.index}`) ?? []), t.width]);
    for (const [k, widths] of byTile)
      assert.deepEqual(
        widths,
        [...widths].sort((a, b) => a - b),
        `${k} written wider each time`,
      );
    const stored = widest(tiles);
    const tile = (l: number, i: number) => stored.get(`${l}/${i}`);
    // Every perfect subtree of the tree: its hash from the tiles equals MTH over its leaves.
    for (const level of [0, 1, 3, 7, 8, 9, 12, 16]) {
      const width = 2 ** level;
      for (
        let index = 0;
        (index + 1) * width <= leaves.length;
        index += Math.max(1, Math.floor(leaves.length / width / 7))
      ) {
        const h = nodeFromTile({ level, index }, tile);
        assert.ok(h, `node ${level}/${index}`);
        assert.equal(
          h.toString('hex'),
          mth(leaves.slice(index * width, (index + 1) * width)).toString('hex'),
          `node ${level}/${index}`,
        );
      }
    }
    assert.equal(nodeFromTile({ level: 0, index: leaves.length }, tile), undefined, 'a leaf past the end');
  });

  it('rebuilds the edge from the stored partial tiles: a restarted writer continues the same tree', () => {
    const edge = new TileEdge();
    const tiles: Tile[] = [];
    const leaves: Buffer[] = [];
    const add = (e: TileEdge, n: number) => {
      const chunk = Array.from({ length: n }, (_, i) => leafOf(entry(leaves.length + i)));
      tiles.push(...e.append(Buffer.concat(chunk)));
      leaves.push(...chunk);
    };
    add(edge, 66_000);
    const stored = widest(tiles);
    const partial = TileEdge.partialTiles(edge.size).map((p) =>
      stored.get(`${p.level}/${p.index}`)!.subarray(0, 32 * p.width),
    );
    const restarted = new TileEdge(edge.size, partial);
    add(restarted, 700);
    assert.equal(restarted.root().toString('hex'), mth(leaves).toString('hex'));
  });

  it('hashes leaves and subtree roots the same natively and with node:crypto', () => {
    // Without the native hasher only the node:crypto path exists (native-entries.test.ts fails when it is unbuilt).
    if (!nativeRowHasher) return assert.equal(process.env.TOOLTRAIL_NATIVE_DIGESTS, '0');
    const entries = Buffer.concat(Array.from({ length: 1024 }, (_, i) => entry(i)));
    const native = leafHashes(entries, nativeRowHasher);
    assert.deepEqual(native, leafHashes(entries, null));
    assert.deepEqual(native.subarray(0, 32), leafOf(entry(0)));
    assert.deepEqual(subtreeRoots(native, 8, nativeRowHasher), subtreeRoots(native, 8, null));
    assert.equal(
      subtreeRoots(native, 10, nativeRowHasher).toString('hex'),
      mth(Array.from({ length: 1024 }, (_, i) => native.subarray(32 * i, 32 * i + 32))).toString('hex'),
    );
    assert.throws(() => leafHashes(Buffer.alloc(33)), /32-byte/);
  });
});
