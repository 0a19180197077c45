// A node:test reporter for scripts/test.js: per test file, the tests announced (test:enqueue), the tests that
// reported a result (test:pass / test:fail), the file's own closing summary and its wall time, then one marker line
// carrying that tally as JSON. scripts/test.js fails the run on a file whose process ended before its summary or
// before reporting every test it announced (a child cut short, or ended by scripts/test-open-handles.js), instead
// of leaving those tests uncounted.
import { resolve } from 'node:path';

export const TALLY_MARKER = '##tooltrail-test-tally ';

/** The identity of one test inside its file: enqueue and result events carry the same fields. */
function testKey(data) {
  return `${data.nesting}:${data.line ?? ''}:${data.column ?? ''}:${data.name}`;
}

export class Tally {
  /** file -> { announced: Set<key>, reported: Set<key>, passed, failed, skipped, summaryTests } */
  files = new Map();

  fileOf(name) {
    let f = this.files.get(name);
    if (!f) {
      f = {
        announced: new Set(),
        reported: new Set(),
        passed: 0,
        failed: 0,
        skipped: 0,
        summaryTests: null,
        durationMs: null,
      };
      this.files.set(name, f);
    }
    return f;
  }

  add(event) {
    const data = event.data ?? {};
    if (typeof data.file !== 'string') return;
    const f = this.fileOf(data.file);
    if (event.type === 'test:summary') f.summaryTests = data.counts?.tests ?? null;
    // The parent announces the file itself, which reports a result of its own only when its process fails.
    const isFileItself = data.nesting === 0 && resolve(String(data.name)) === data.file;
    if (event.type === 'test:enqueue' && !isFileItself) f.announced.add(testKey(data));
    // The file's own completion carries its process's wall time (the runner's "slowest files").
    if (event.type === 'test:complete' && isFileItself) f.durationMs = data.details?.duration_ms ?? null;
    if (event.type !== 'test:pass' && event.type !== 'test:fail') return;
    f.reported.add(testKey(data));
    if (isFileItself && event.type === 'test:pass') return;
    // Suites report a result too; leaf tests are what node's own summary counts.
    if (data.details?.type === 'suite') return;
    if (data.skip !== undefined || data.todo !== undefined) f.skipped++;
    else if (event.type === 'test:pass') f.passed++;
    else f.failed++;
  }

  /** Plain data: per file, its counts, its summary's count, its wall time and the tests announced but never reported. */
  toJSON() {
    const files = {};
    for (const [name, f] of this.files) {
      const missing = [...f.announced].filter((k) => !f.reported.has(k)).map((k) => k.split(':').slice(3).join(':'));
      const { passed, failed, skipped, summaryTests, durationMs } = f;
      files[name] = { passed, failed, skipped, summaryTests, durationMs, missing };
    }
    return { files };
  }
}

/**
 * What is wrong with a run's tally, as { file, problem }: the files given that ended without their summary, reported
 * fewer tests than their summary counts, or announced tests they never reported. Empty when every test is counted.
 */
export function uncountedFiles(tally, files) {
  const problems = [];
  for (const file of files) {
    const f = tally.files[file];
    if (!f) {
      problems.push({ file, problem: 'reported nothing' });
      continue;
    }
    const counted = f.passed + f.failed + f.skipped;
    if (f.summaryTests === null)
      problems.push({ file, problem: `ended without its summary (${counted} tests counted)` });
    else if (counted < f.summaryTests)
      problems.push({ file, problem: `${counted} tests reported of the ${f.summaryTests} its summary counts` });
    if (f.missing.length > 0) {
      problems.push({
        file,
        problem: `${f.missing.length} tests announced but never reported (first: "${f.missing[0]}")`,
      });
    }
  }
  return problems;
}

export default async function* tally(source) {
  const t = new Tally();
  for await (const event of source) t.add(event);
  yield `\n${TALLY_MARKER}${JSON.stringify(t)}\n`;
}
