/**
 * The framework integrations under the Node version their packages declare (`ai` 7 and `@openai/agents` 0.20 need
 * Node >= 22): each *.spec.ts here runs with node's test runner under the Node 22 binary of test/compat/node22
 * (installed with `npm ci` there when missing, serialized with flock like the other users of that folder).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const compat = join(ROOT, 'test/compat/node22');
const node22 = join(compat, 'node_modules/.bin/node');
const LOCK = join(tmpdir(), 'tooltrail-compat-node22.lock');

before(() => {
  if (!existsSync(node22)) {
    const install = 'test -x node_modules/.bin/node || npm ci --no-audit --no-fund';
    const r = spawnSync('flock', [LOCK, 'sh', '-c', install], { cwd: compat, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `npm ci in test/compat/node22 failed:\n${r.stderr}`);
  }
  const version = spawnSync(node22, ['--version'], { encoding: 'utf8' });
  assert.match(
    version.stdout,
    /^v22\./,
    `expected a Node 22 binary at ${node22}, got ${version.stdout}${version.stderr}`,
  );
});

/** Our own test runner's context variable would make the child report to it in its binary protocol. */
function childEnv(): NodeJS.ProcessEnv {
  const { NODE_TEST_CONTEXT: _, NODE_OPTIONS: __, ...env } = process.env;
  return env;
}

for (const [spec, framework] of [
  ['ai-sdk.spec.ts', 'the Vercel AI SDK'],
  ['openai-agents.spec.ts', 'the OpenAI Agents SDK'],
  ['readme-ai-sdk.spec.ts', "the README's AI SDK example"],
  ['paging-by-hand.spec.ts', 'a model paging by hand in both SDKs'],
] as const) {
  test(`${framework} under Node 22: its tool loop gets the guard's refusal after an incomplete read (${spec})`, () => {
    const r = spawnSync(
      node22,
      ['--import', 'tsx', '--test', '--test-reporter=spec', join('test/integration/frameworks', spec)],
      { cwd: ROOT, encoding: 'utf8', timeout: 120_000, env: childEnv() },
    );
    assert.equal(r.status, 0, `${spec} failed under Node 22:\n${r.stdout}\n${r.stderr}`);
    assert.match(r.stdout, /pass [1-9]/, r.stdout);
    assert.match(r.stdout, /fail 0/, r.stdout);
  });
}
