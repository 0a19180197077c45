import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  consistencyRanges,
  EMPTY_ROOT,
  type Hash,
  inclusionRanges,
  leafHash,
  rangeHash,
  verifyConsistency,
  verifyInclusion,
} from '../../../audit/log/rfc6962.ts';

// ---- an independent RFC 6962 section 2.1 implementation, written from the RFC's definitions (not the code under
// test): MTH, PATH and PROOF/SUBPROOF as recursive functions over the whole list of leaves.
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const k = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
// MTH of a list of leaf objects is hashed once (the proofs below ask for the same subtrees many times over).
const leafIds = new WeakMap<Buffer, number>();
let leavesSeen = 0;
function idOf(b: Buffer): number {
  const known = leafIds.get(b);
  if (known !== undefined) return known;
  leafIds.set(b, leavesSeen);
  return leavesSeen++;
}
const mthOfList = new Map<string, Buffer>();
function mth(d: readonly Buffer[]): Buffer {
  if (d.length === 0) return sha();
  if (d.length === 1) return sha(Buffer.from([0]), d[0]!);
  const key = d.map(idOf).join(',');
  const known = mthOfList.get(key);
  if (known) return known;
  const s = k(d.length);
  const h = sha(Buffer.from([1]), mth(d.slice(0, s)), mth(d.slice(s)));
  mthOfList.set(key, h);
  return h;
}
function path(m: number, d: readonly Buffer[]): Buffer[] {
  if (d.length === 1) return [];
  const s = k(d.length);
  return m < s ? [...path(m, d.slice(0, s)), mth(d.slice(s))] : [...path(m - s, d.slice(s)), mth(d.slice(0, s))];
}
function subproof(m: number, d: readonly Buffer[], b: boolean): Buffer[] {
  const n = d.length;
  if (m === n) return b ? [] : [mth(d)];
  const s = k(n);
  return m <= s
    ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))]
    : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}
const proof = (m: number, d: readonly Buffer[]) => subproof(m, d, true);

// The code under test, over the same leaves: node hashes looked up from a table of perfect subtrees.
function underTest(d: readonly Buffer[]) {
  const node = ({ level, index }: { level: number; index: number }): Hash =>
    mth(d.slice(index * 2 ** level, (index + 1) * 2 ** level));
  const hashOf = (r: { start: number; end: number }) => rangeHash(r, node);
  return {
    root: () => (d.length === 0 ? EMPTY_ROOT : hashOf({ start: 0, end: d.length })),
    inclusion: (m: number) => inclusionRanges(m, d.length).map(hashOf),
    consistency: (m: number) => consistencyRanges(m, d.length).map(hashOf),
  };
}

const hex = (b: Buffer) => b.toString('hex');

// The leaves and roots published with Certificate Transparency's reference implementation (RFC 6962 test data).
const CT_LEAVES = [
  '',
  '00',
  '10',
  '2021',
  '3031',
  '40414243',
  '5051525354555657',
  '606162636465666768696a6b6c6d6e6f',
].map((h) => Buffer.from(h, 'hex'));
const CT_ROOTS = [
  '6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d',
  'fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125',
  'aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77',
  'd37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7',
  '4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4',
  '76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef',
  'ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c',
  '5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328',
];

describe('RFC 6962 Merkle tree (audit/log/rfc6962.ts)', () => {
  it('computes the published roots of the CT test leaves, as the independent implementation does', () => {
    for (let n = 1; n <= 8; n++) {
      const d = CT_LEAVES.slice(0, n);
      assert.equal(hex(mth(d)), CT_ROOTS[n - 1], `independent root of ${n}`);
      assert.equal(hex(underTest(d).root()), CT_ROOTS[n - 1], `root of ${n}`);
    }
    assert.equal(hex(EMPTY_ROOT), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  });

  it('separates leaves from nodes: a leaf is SHA-256(0x00 || data), never the bare hash', () => {
    assert.equal(hex(leafHash(Buffer.alloc(0))), CT_ROOTS[0]);
    assert.notEqual(hex(leafHash(Buffer.from('00', 'hex'))), hex(sha(Buffer.from('00', 'hex'))));
  });

  const leaves = Array.from({ length: 70 }, (_, i) => createHash('sha256').update(`row ${i}`).digest());

  it('builds inclusion proofs equal to the RFC definition, for every leaf of every tree size up to 70', () => {
    for (let n = 1; n <= leaves.length; n++) {
      const d = leaves.slice(0, n);
      const t = underTest(d);
      const root = t.root();
      assert.equal(hex(root), hex(mth(d)));
      for (let m = 0; m < n; m++) {
        const p = t.inclusion(m);
        assert.deepEqual(p.map(hex), path(m, d).map(hex), `PATH(${m}, ${n})`);
        assert.ok(verifyInclusion(leafHash(d[m]!), m, n, p, root), `inclusion ${m} in ${n}`);
      }
    }
  });

  it('builds consistency proofs equal to the RFC definition, for every pair of sizes up to 70', () => {
    for (let n = 1; n <= leaves.length; n++) {
      const d = leaves.slice(0, n);
      const t = underTest(d);
      for (let m = 1; m <= n; m++) {
        const p = t.consistency(m);
        assert.deepEqual(p.map(hex), proof(m, d).map(hex), `PROOF(${m}, ${n})`);
        assert.ok(verifyConsistency(m, n, p, mth(d.slice(0, m)), mth(d)), `consistency ${m} -> ${n}`);
      }
    }
  });

  it('refuses an inclusion proof for an altered leaf, a wrong index, a wrong size or an edited path', () => {
    const d = leaves.slice(0, 13);
    const t = underTest(d);
    const root = t.root();
    const p = t.inclusion(5);
    const leaf = leafHash(d[5]!);
    assert.ok(verifyInclusion(leaf, 5, 13, p, root));
    assert.equal(verifyInclusion(leafHash(d[6]!), 5, 13, p, root), false, 'another row');
    assert.equal(verifyInclusion(leaf, 4, 13, p, root), false, 'another index');
    assert.equal(verifyInclusion(leaf, 5, 6, p, root), false, 'another size');
    assert.equal(verifyInclusion(leaf, 13, 13, p, root), false, 'index past the end');
    assert.equal(verifyInclusion(leaf, 5, 13, p.slice(1), root), false, 'a step missing');
    const edited = p.map((h, i) => (i === 1 ? Buffer.from(h.map((b) => b ^ 1)) : h));
    assert.equal(verifyInclusion(leaf, 5, 13, edited, root), false, 'a step edited');
  });

  it('refuses a consistency proof when the older tree was rewritten (a leaf changed before the first size)', () => {
    const d = leaves.slice(0, 40);
    const first = mth(d.slice(0, 17));
    const rewritten = [...d];
    rewritten[3] = createHash('sha256').update('forged').digest();
    const t = underTest(rewritten);
    const p = t.consistency(17);
    assert.equal(verifyConsistency(17, 40, p, first, t.root()), false);
    // The honest tree, same sizes: consistent.
    const honest = underTest(d);
    assert.ok(verifyConsistency(17, 40, honest.consistency(17), first, honest.root()));
    assert.equal(verifyConsistency(17, 40, honest.consistency(17).slice(1), first, honest.root()), false);
    assert.equal(verifyConsistency(17, 40, honest.consistency(16), first, honest.root()), false, 'proof for 16');
  });
});
