/**
 * The README's test command counts every test or fails: a file whose process ends before its summary, or before
 * reporting every test it announced (a child cut short by --test-force-exit), fails the run instead of silently
 * lowering the count.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Tally, uncountedFiles } from '../../../scripts/test-tally.js';

const root = resolve(import.meta.dirname, '../../..');
const fixture = (name: string) => `test/unit/foundation/fixtures/${name}.fixture.ts`;

function runTests(...files: string[]) {
  // Without the parent runner's context variable, the runner under test reports as a top-level run.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return spawnSync(process.execPath, ['scripts/test.js', '--no-services', ...files], {
    cwd: root,
    env,
    encoding: 'utf8',
    timeout: 120_000,
  });
}

describe('scripts/test.js: every test counted or the run fails', () => {
  it('a file whose process ends mid-file with status 0 fails the run, named with the reason', () => {
    const r = runTests(fixture('ends-mid-file'), fixture('two-tests'));
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /ends-mid-file\.fixture\.ts: ended without its summary/);
    assert.doesNotMatch(r.stderr, /two-tests\.fixture\.ts/);
    assert.match(r.stdout, /^2 passed, 0 failed, 0 skipped$/m);
  });

  it('a run whose files all report their tests passes with their count', () => {
    const r = runTests(fixture('two-tests'));
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^2 passed, 0 failed, 0 skipped$/m);
  });
});

describe('the tally', () => {
  const file = '/repo/test/a.test.ts';
  const at = (name: string, line: number) => ({ file, name, nesting: 0, line, column: 1 });

  it('a test announced but never reported makes its file uncounted, even with a summary', () => {
    const t = new Tally();
    t.add({ type: 'test:enqueue', data: at('kept', 1) });
    t.add({ type: 'test:enqueue', data: at('lost', 2) });
    t.add({ type: 'test:pass', data: { ...at('kept', 1), details: { type: 'test' } } });
    t.add({ type: 'test:summary', data: { file, counts: { tests: 1 } } });
    assert.deepEqual(uncountedFiles(t.toJSON(), [file]), [
      { file, problem: '1 tests announced but never reported (first: "lost")' },
    ]);
  });

  it('fewer tests reported than the summary counts makes the file uncounted', () => {
    const t = new Tally();
    t.add({ type: 'test:pass', data: { ...at('only', 1), details: { type: 'test' } } });
    t.add({ type: 'test:summary', data: { file, counts: { tests: 3 } } });
    assert.deepEqual(uncountedFiles(t.toJSON(), [file]), [
      { file, problem: '1 tests reported of the 3 its summary counts' },
    ]);
  });

  it('a file given that reported nothing is uncounted; suites and the file itself are not counted as tests', () => {
    const t = new Tally();
    t.add({ type: 'test:enqueue', data: { file, name: file, nesting: 0 } });
    t.add({ type: 'test:pass', data: { file, name: file, nesting: 0, details: { type: 'test' } } });
    t.add({ type: 'test:pass', data: { ...at('group', 1), details: { type: 'suite' } } });
    t.add({ type: 'test:summary', data: { file, counts: { tests: 0 } } });
    assert.deepEqual(t.toJSON().files[file]?.passed, 0);
    assert.deepEqual(uncountedFiles(t.toJSON(), [file, '/repo/test/b.test.ts']), [
      { file: '/repo/test/b.test.ts', problem: 'reported nothing' },
    ]);
  });
});
