/**
 * The README's test command counts every test or fails: a file whose process ends before its summary, or before
 * reporting every test it announced (a child cut short), fails the run instead of silently lowering the count; and
 * a file that leaves a handle open fails the run, naming it, instead of holding it.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { Tally, uncountedFiles } from '../../../scripts/test-tally.js';

const root = resolve(import.meta.dirname, '../../..');
const fixture = (name: string) => `test/unit/foundation/fixtures/${name}.fixture.ts`;

function runTests(...files: string[]) {
  return runTestsWith({}, ...files);
}

function runTestsWith(extra: Record<string, string>, ...files: string[]) {
  // Without the parent runner's context variable, the runner under test reports as a top-level run.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  return spawnSync(process.execPath, ['scripts/test.js', '--no-services', ...files], {
    cwd: root,
    env: { ...env, ...extra },
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

describe('scripts/test.js: a file closes what it opened', () => {
  it('a file that leaves a timer running fails the run, named with what it left open, and the run ends', () => {
    const r = runTestsWith({ TOOLTRAIL_TEST_EXIT_GRACE_MS: '1000' }, fixture('leaves-a-handle'), fixture('two-tests'));
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(
      r.stdout + r.stderr,
      /leaves-a-handle\.fixture\.ts still runs 1 s after its tests ended: it left open [^\n]*Timeout/,
    );
    assert.match(r.stderr, /leaves-a-handle\.fixture\.ts: ended without its summary/);
    assert.doesNotMatch(r.stderr, /two-tests\.fixture\.ts/);
  });

  it('a file that closes what it opened ends by itself, without waiting for the grace', () => {
    const started = Date.now();
    const r = runTestsWith({ TOOLTRAIL_TEST_EXIT_GRACE_MS: '60000' }, fixture('two-tests'));
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.ok(Date.now() - started < 50_000, 'the run did not wait for the 60 s grace');
  });
});

describe('scripts/test.js: files in lanes, one count for the run', () => {
  it('files in two runner processes close with one node summary and one line, each counting both', () => {
    const r = runTests(fixture('two-tests'), fixture('self-contained'));
    assert.equal(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^▷ 1 unit files, 2 at a time$/m);
    assert.match(r.stdout, /^▷ self-contained test\/unit\/foundation\/fixtures\/self-contained\.fixture\.ts$/m);
    assert.match(r.stdout, /✔ counted from its own lane/);
    assert.deepEqual(r.stdout.match(/^ℹ tests \d+$/gm), ['ℹ tests 3'], 'one summary, for both lanes');
    assert.match(r.stdout, /^ℹ pass 3$/m);
    assert.match(r.stdout, /^ℹ slow [\d.]+ s test\/unit\/foundation\/fixtures\/self-contained\.fixture\.ts$/m);
    const lines = r.stdout.trimEnd().split('\n');
    assert.equal(lines.at(-1), '3 passed, 0 failed, 0 skipped', 'the closing line is last');
  });

  it('the self-contained files are shared out between the lanes, one process each, every one counted once', () => {
    const r = runTests(fixture('two-tests'), fixture('self-contained'), fixture('self-contained-second'));
    assert.equal(r.status, 0, r.stdout + r.stderr);
    for (const name of ['self-contained', 'self-contained-second']) {
      assert.equal(r.stdout.match(new RegExp(`^▷ self-contained .*/${name}\\.fixture\\.ts$`, 'gm'))?.length, 1, name);
    }
    const taken = [...r.stdout.matchAll(/^ℹ lane .*self-contained [\d.]+ s: (\d+) files\)$/gm)].map((m) =>
      Number(m[1]),
    );
    assert.equal(
      taken.reduce((a, b) => a + b, 0),
      2,
      `the lanes' own counts add up to the two files: ${r.stdout}`,
    );
    assert.deepEqual(r.stdout.match(/^ℹ tests \d+$/gm), ['ℹ tests 4'], 'one summary, for every process');
    assert.equal(r.stdout.trimEnd().split('\n').at(-1), '4 passed, 0 failed, 0 skipped');
  });

  it('a file that dies in one runner process is named and fails the run, the other process still counted', () => {
    const r = runTests(fixture('ends-mid-file'), fixture('self-contained'));
    assert.equal(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /ends-mid-file\.fixture\.ts: ended without its summary/);
    assert.doesNotMatch(r.stderr, /self-contained\.fixture\.ts/);
    assert.match(r.stdout, /^1 passed, 0 failed, 0 skipped$/m, "the self-contained file's test");
  });
});

describe('scripts/test.js stopped by a signal', () => {
  it('fails the run, saying so, and starts no further stage', async () => {
    // One lane: the self-contained file would come after the unit one.
    const { NODE_TEST_CONTEXT: _, ...rest } = process.env;
    const env = { ...rest, TOOLTRAIL_TEST_LANES: 'sequential' };
    const child = spawn(
      process.execPath,
      ['scripts/test.js', '--no-services', fixture('waits'), fixture('self-contained')],
      { cwd: root, env },
    );
    let stdout = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      // The first stage is under way: stop the run as a CI time limit would.
      if (stdout.includes('▷ 1 unit files')) child.kill('SIGTERM');
    });
    const [code] = await once(child, 'close');
    assert.equal(code, 1, stdout);
    assert.match(stdout, /^tests: stopped by SIGTERM: the run fails$/m);
    assert.doesNotMatch(stdout, /counted from its own lane/, 'the self-contained file never started');
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

  it("keeps each file's wall time from the file's own completion", () => {
    const t = new Tally();
    t.add({ type: 'test:complete', data: { ...at('a test', 1), details: { duration_ms: 5 } } });
    t.add({ type: 'test:complete', data: { file, name: file, nesting: 0, details: { duration_ms: 1234.5 } } });
    assert.equal(t.toJSON().files[file]?.durationMs, 1234.5);
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
