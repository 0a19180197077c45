/** Strict TypeScript and the linter hold over the whole repository, not only in editors. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const bin = (name: string) => resolve(root, 'node_modules/.bin', name);

test('the whole repository typechecks under strict TypeScript', () => {
  const r = spawnSync(bin('tsc'), ['--noEmit', '-p', 'tsconfig.json'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 300_000,
  });
  assert.equal(r.status, 0, `tsc found errors:\n${r.stdout}${r.stderr}`);
});

test('the linter and formatter find nothing to change', () => {
  const r = spawnSync(bin('biome'), ['check', '.'], { cwd: root, encoding: 'utf8', timeout: 120_000 });
  assert.equal(r.status, 0, `biome check failed:\n${r.stdout}${r.stderr}`);
});
