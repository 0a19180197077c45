/** The session's evidence ledger against a plain model: the last `size` reads, the latest record per call id. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { EvidenceRecord } from '../../../instrumentation/session.ts';
import { EvidenceLedger } from '../../../instrumentation/session.ts';

const op = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('add' as const), id: fc.nat(6), snapshot: fc.nat(3) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('byCallId' as const), id: fc.nat(7) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('bySnapshot' as const), snapshot: fc.nat(3) }) },
);

function record(id: number, snapshot: number, sequence: number): EvidenceRecord {
  return {
    callId: `call-${id}`,
    toolName: 'inventory',
    sequence,
    at: 0,
    status: 'complete',
    complete: true,
    reasons: [],
    continuation: { kind: 'none' },
    scope: { resource: 'r', snapshot: `snap-${snapshot}` },
  };
}

test('the ledger remembers the last reads only, and the latest record of a repeated call id', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 60 }), (size, ops) => {
      const ledger = new EvidenceLedger(size);
      const all: EvidenceRecord[] = [];
      for (const o of ops) {
        const live = all.slice(-size);
        if (o.kind === 'add') {
          const r = record(o.id, o.snapshot, all.length + 1);
          all.push(r);
          ledger.add(r);
        } else if (o.kind === 'byCallId') {
          const expected = live.filter((r) => r.callId === `call-${o.id}`).at(-1);
          assert.equal(ledger.byCallId(`call-${o.id}`), expected);
        } else {
          const expected = live.filter(
            (r, i) =>
              r.scope?.snapshot === `snap-${o.snapshot}` && !live.slice(i + 1).some((x) => x.callId === r.callId),
          );
          assert.deepEqual(ledger.bySnapshot(`snap-${o.snapshot}`), expected);
        }
      }
    }),
    { numRuns: 300, seed: 7 },
  );
});

test('lookups stay right across thousands of reads between them, forgotten reads gone', () => {
  const ledger = new EvidenceLedger(3);
  for (let n = 0; n < 10_000; n += 1) {
    ledger.add(record(n, 0, n));
    if (n % 7 === 0) assert.equal(ledger.byCallId(`call-${n}`)?.sequence, n);
  }
  assert.equal(ledger.byCallId('call-9996'), undefined, 'forgotten');
  assert.deepEqual(
    ledger.bySnapshot('snap-0').map((r) => r.sequence),
    [9997, 9998, 9999],
  );
});
