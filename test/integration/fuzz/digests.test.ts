// test-lane: self-contained (no service: the row hasher npm ci compiled with the machine's C compiler)
/**
 * The digests fuzz target (fuzz/targets/digests.ts), seeded: the native row hasher and the JavaScript writer agree
 * on intact and mutated Native blocks, with canonical.ts on intact ones, and refuse the same broken ones.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type NativeRowHasher, nativeRowHasher } from '../../../audit/native-core/index.ts';
import { TargetReport } from '../../../fuzz/report.ts';
import { fuzzDigests } from '../../../fuzz/targets/digests.ts';

describe('digest fuzzing (native row hasher against the JavaScript writer)', () => {
  it('agree on 1,500 intact and mutated blocks, refuse the same ones, and never crash or hang', () => {
    assert.ok(nativeRowHasher, 'build/row-hashes.node is missing: npm run build:native');
    const report = new TargetReport('digests');
    fuzzDigests(1500, 20261130, report);
    assert.equal(report.violations, 0, JSON.stringify(report.examples, null, 1));
    for (const seen of ['intact', 'mutated: refused', 'mutated: hashed'])
      assert.ok((report.outcomes.get(seen) ?? 0) > 50, `${seen}: ${report.outcomes.get(seen) ?? 0} cases`);
  });

  it('reports a hasher that gets one row wrong as a disagreement (the checker can fail)', () => {
    const real = nativeRowHasher as NativeRowHasher;
    const faulty: NativeRowHasher = {
      ...real,
      hashRows(body, columns, rows, prefix, start, end, out) {
        const rc = real.hashRows(body, columns, rows, prefix, start, end, out);
        if (rc === 0 && rows > 0) out[0] = (out[0]! + 1) % 256;
        return rc;
      },
    };
    const report = new TargetReport('digests');
    fuzzDigests(100, 1, report, faulty);
    assert.ok(report.counts.disagreement > 0);
  });
});
