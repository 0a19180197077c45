/**
 * The socket fuzz target (lying lengths, pipelined garbage, cut and slow bodies, both JSON spellings, deep nesting
 * in both formats) finds no 5xx and no leaked admission slot, and its cases reach past the first check.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { socketsTarget } from '../../../fuzz/targets/collector-sockets.ts';

it('collector-sockets: 120 cases, no 5xx, no slot or byte held after a connection closed', async () => {
  const report = await socketsTarget.run(120, 26);
  assert.equal(report.violations, 0, JSON.stringify(report.examples, null, 2));
  assert.equal(report.cases, 120);
  assert.ok(report.outcomes.size >= 3, `the cases reach several answers: ${JSON.stringify([...report.outcomes])}`);
});
