/** The README's usage example is pasteable: it runs as written (with the package name mapped to this repo). */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

test('the README usage example runs and prints what its comment says', () => {
  const readme = readFileSync(join(root, 'instrumentation/README.md'), 'utf8');
  const code = /```js\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(code, 'a js code block');
  const lines = code
    .trim()
    .split('\n')
    .filter((l) => !l.startsWith('import '));
  assert.ok(lines.length <= 10, `a short example (${lines.length} lines after the imports)`);
  const expected = /\/\/ (.+)$/m.exec(code.split('\n').find((l) => l.startsWith('console.log')) ?? '')?.[1];
  assert.ok(expected, 'the console.log line says what it prints');
  const runnable = code
    .replace("'@tooltrail/instrumentation'", `'${new URL('instrumentation/index.ts', `file://${root}`).href}'`)
    .replace("'@opentelemetry/sdk-trace'", `'${import.meta.resolve('@opentelemetry/sdk-trace')}'`);
  const dir = mkdtempSync(join(tmpdir(), 'tooltrail-readme-'));
  try {
    const file = join(dir, 'example.mts');
    writeFileSync(file, runnable);
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.ok(r.stdout.includes(expected), `stdout has "${expected}":\n${r.stdout.slice(-500)}`);
    assert.ok(r.stdout.includes('execute_tool disable_accounts'), 'the spans reached the console exporter');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
