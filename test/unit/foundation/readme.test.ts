/** The README stays true: its example is the one the instrumentation tests run, its commands exist. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
const firstExample = (md: string) => /```js\n([\s\S]*?)```/.exec(md)?.[1];

test('the README usage example is the instrumentation example the tests run as written', () => {
  const library = firstExample(readFileSync(resolve(root, 'instrumentation/README.md'), 'utf8'));
  assert.ok(library, 'instrumentation/README.md has a js example');
  assert.equal(firstExample(readme), library);
  assert.ok(library.trim().split('\n').length <= 12, 'the example stays about ten lines');
});

test('the README names its two commands, and every tooltrail command it lists exists', () => {
  assert.match(readme, /npm ci && npm run demo/);
  assert.match(readme, /npm ci && npm test/);
  const pkg = JSON.parse(readFileSync(resolve(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  assert.ok(pkg.scripts.demo && pkg.scripts.test, 'package.json defines demo and test');
  const help = spawnSync(process.execPath, [resolve(root, 'bin/tooltrail.js'), '--help'], { encoding: 'utf8' }).stdout;
  const listed = [...readme.matchAll(/^\| `tooltrail ([a-z-]+)/gm)].map((m) => m[1]!);
  assert.ok(listed.length >= 10, `commands table found: ${listed.join(', ')}`);
  for (const cmd of listed) assert.match(help, new RegExp(`^  ${cmd}\\b`, 'm'), `tooltrail ${cmd} is not a command`);
});
