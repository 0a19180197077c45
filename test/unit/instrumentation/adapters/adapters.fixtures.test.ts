/** Each adapter against the response shapes its API documents (fixtures/ names the pages). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ToolResultSchema } from '../../../../contract/index.ts';
import { completenessState, isEvidenceOfAbsence } from '../../../../instrumentation/results.ts';
import { ADAPTER_CASES } from './fixtures/index.ts';

for (const { adapter, fixtures } of ADAPTER_CASES) {
  describe(adapter.name, () => {
    for (const f of fixtures) {
      test(f.rule, () => {
        const r = adapter.read(f.response, f.options);
        assert.ok(ToolResultSchema.safeParse(r).success, 'the envelope validates');
        const e = f.expect;
        assert.equal(r.status, e.status);
        assert.deepEqual(
          r.completeness.reasons
            .map((x) => x.code)
            .filter((c, i, a) => a.indexOf(c) === i)
            .sort(),
          [...e.reasons].sort(),
        );
        assert.equal(r.completeness.complete, e.status === 'complete');
        if (e.continuation) assert.equal(r.completeness.continuation.kind, e.continuation);
        if (e.cursor) {
          const c = r.completeness.continuation;
          assert.equal(c.kind === 'next_cursor' ? c.cursor : undefined, e.cursor);
        }
        if (e.items !== undefined) assert.equal(r.items?.length, e.items);
        if (e.snapshot) assert.equal(r.scope?.snapshot, e.snapshot);
        if (e.resource) assert.equal(r.scope?.resource, e.resource);
        if (e.warnings)
          assert.deepEqual(
            r.warnings.map((w) => w.code),
            e.warnings,
          );
        for (const s of e.sources ?? []) {
          assert.ok(
            r.completeness.reasons.some((x) => x.source === s),
            `a reason names ${s}`,
          );
        }
        if (f.emptyIncomplete) {
          assert.equal(completenessState(r), 'incomplete_empty');
          assert.equal(isEvidenceOfAbsence(r), false);
        }
      });
    }
    test('has a documented empty-and-incomplete fixture', () => {
      assert.ok(fixtures.some((f) => f.emptyIncomplete));
    });
  });
}
