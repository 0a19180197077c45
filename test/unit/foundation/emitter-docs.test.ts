/**
 * The emitter pages (docs/emitters/) stay true: each shows, as written, the policy file the e2e test runs
 * (examples/emitters/policy.yaml), that file is a valid tool policy, and the index links every page.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { parse as parseYaml } from 'yaml';
import { parsePolicy } from '../../../contract/index.ts';

const root = resolve(import.meta.dirname, '../../..');
const DOCS = 'docs/emitters';
const POLICY_FILE = 'examples/emitters/policy.yaml';
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const policy = read(POLICY_FILE);
const pages = readdirSync(join(root, DOCS))
  .filter((f) => f.endsWith('.md') && f !== 'README.md')
  .sort();
const yamlBlocks = (md: string) => [...md.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

test('every emitter page shows the policy file the e2e test runs, as written', () => {
  assert.ok(pages.length >= 5, `pages found: ${pages.join(', ')}`);
  const without = pages.filter((page) => !yamlBlocks(read(`${DOCS}/${page}`)).includes(policy));
  assert.deepEqual(without, [], `a yaml block equal to ${POLICY_FILE} is missing from these pages`);
});

test('the example policy file is a valid tool policy that names the effect of every tool', () => {
  const parsed = parsePolicy(parseYaml(policy), POLICY_FILE);
  const tools = Object.entries(parsed.tools);
  assert.ok(tools.length > 0, `${POLICY_FILE} names no tool`);
  // A tool without an effect would be stored of unknown effect: the example must not teach that.
  for (const [name, tool] of tools) assert.ok(tool.effect !== undefined, `${POLICY_FILE}: ${name} has no effect`);
});

test('every emitter page is linked from docs/emitters/README.md', () => {
  const index = read(`${DOCS}/README.md`);
  const linked = new Set([...index.matchAll(/\]\(([^)#\s]+)(?:#[^)\s]*)?\)/g)].map((m) => m[1]));
  assert.deepEqual(
    pages.filter((page) => !linked.has(page)),
    [],
  );
});
