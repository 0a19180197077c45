/**
 * A digest record lists its entries in (table, id, hash) order and `rows_hash` covers them in that order: the fast
 * numeric-key sort (audit/chain.ts `sortEntries`) must give exactly the order of comparing the strings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sha256 } from '../../../audit/canonical.ts';
import { type DigestEntry, rowsHash, sortEntries } from '../../../audit/chain.ts';
import { prng } from '../ingest/otlp-payloads.ts';

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const reference = (es: DigestEntry[]) =>
  es.slice().sort((a, b) => cmp(a.table, b.table) || cmp(a.id, b.id) || cmp(a.hash, b.hash));

function hex(r: ReturnType<typeof prng>, n: number): string {
  return Array.from({ length: n }, () => '0123456789abcdef'[r.int(16)]).join('');
}

describe('digest entry order', () => {
  it('sorts span-id entries as string comparison does, ties on the first 8 hex digits included', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const r = prng(seed);
      const shared = Array.from({ length: 4 }, () => hex(r, 8));
      const entries: DigestEntry[] = Array.from({ length: 64 + r.int(3000) }, () => ({
        table: r.pick(['tool_calls', 'tool_call_warnings', 'spans']),
        // Many ids share a prefix (and some share the whole id, across tables and within one): runs to finish.
        id: r.chance(0.3) ? `${r.pick(shared)}${r.chance(0.5) ? '00000000' : hex(r, 8)}` : hex(r, 16),
        hash: hex(r, 64),
      }));
      assert.deepEqual(sortEntries(entries), reference(entries), `seed ${seed}`);
    }
  });

  it('hashes the sorted entry lines as their joined text, ids that are not ASCII included', () => {
    const r = prng(11);
    for (const odd of ['', 'é', '😀', 'x\ty']) {
      const entries: DigestEntry[] = Array.from({ length: 200 }, (_, i) => ({
        table: r.pick(['tool_calls', 'spans']),
        id: i === 17 ? odd : hex(r, 16),
        hash: hex(r, 64),
      }));
      const text = reference(entries)
        .map((e) => `${e.table}\t${e.id}\t${e.hash}`)
        .join('\n');
      assert.equal(rowsHash(entries), sha256(text), JSON.stringify(odd));
    }
  });

  it('falls back to comparing strings for ids that are not lower-case hex, and leaves its input unsorted', () => {
    const r = prng(9);
    const entries: DigestEntry[] = Array.from({ length: 500 }, (_, i) => ({
      table: r.pick(['tool_calls', 'spans']),
      id: i % 50 === 0 ? r.pick(['ABCDEF0123', 'é', '', 'zz']) : hex(r, 16),
      hash: hex(r, 64),
    }));
    const before = entries.slice();
    assert.deepEqual(sortEntries(entries), reference(entries));
    assert.deepEqual(entries, before);
  });
});
