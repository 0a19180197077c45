/**
 * The collector's OTLP/HTTP endpoint and probes with generated requests (fuzz/targets/collector.ts), through
 * `inject()` with a counting sink: seeded, so a failure replays with `npm run fuzz -- --only otlp --seed ...`.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepJson, deepProtobuf, otlpCase } from '../../../fuzz/otlp-gen.ts';
import { Rng } from '../../../fuzz/rng.ts';
import {
  CountingSink,
  fuzzOtlp,
  otlpTarget,
  otlpThreadsTarget,
  probesTarget,
} from '../../../fuzz/targets/collector.ts';

describe('OTLP endpoint fuzzing', () => {
  it('never answers 5xx to a malformed OTLP body and never silently loses a valid span (1,500 seeded cases)', async () => {
    const report = await otlpTarget.run(1_500, 20261130);
    assert.equal(report.cases, 1_500);
    assert.deepEqual(report.examples, []);
    assert.equal(report.violations, 0);
    // The cases reach every stage: accepted (200), refused as not OTLP (400), unauthenticated, wrong type, too large.
    for (const status of ['200', '400', '401', '413', '415'])
      assert.ok(report.outcomes.get(status), `no ${status} answer`);
  });

  it('never answers 5xx to a malformed OTLP body when it decodes on its decode threads (300 cases)', async () => {
    const report = await otlpThreadsTarget.run(300, 20261130);
    assert.deepEqual(report.examples, []);
    assert.equal(report.violations, 0);
    assert.ok(report.outcomes.get('200') && report.outcomes.get('400'));
  });

  it('never answers 5xx on its probes and unknown routes to random paths, queries and headers (1,000 cases)', async () => {
    const report = await probesTarget.run(1_000, 20261130);
    assert.deepEqual(report.examples, []);
    assert.equal(report.violations, 0);
    assert.ok(report.outcomes.get('200') && report.outcomes.get('404'));
  });

  it('reports a span that reached neither the sink nor partial_success (the no-loss check can fail)', async () => {
    const report = await fuzzOtlp(new CountingSink(true), 200, 7);
    assert.ok(report.counts.span_lost > 0, 'a sink losing one span per write went unnoticed');
  });

  it('generates well-formed requests whose spans it counts, and deep bodies beyond the converter bound', () => {
    const rng = new Rng(1);
    let counted = 0;
    for (let i = 0; i < 200; i++) if (otlpCase(rng, { token: 't' }).spans !== undefined) counted++;
    assert.ok(counted > 40, `only ${counted} cases carry a span count for the no-loss check`);
    assert.ok(deepJson(100).toString().includes('"arrayValue"'));
    assert.ok(deepProtobuf(100).length > 400);
  });
});
