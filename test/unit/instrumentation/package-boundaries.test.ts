import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { INSTRUMENTATION_VERSION } from '../../../instrumentation/version.ts';

const dir = new URL('../../../instrumentation/', import.meta.url);
const sources = readdirSync(dir)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: f, text: readFileSync(new URL(f, dir), 'utf8') }));
const pkg = JSON.parse(readFileSync(new URL('package.json', dir), 'utf8'));

test('the library depends on @opentelemetry/api only (as a peer), never on an SDK', () => {
  assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), [
    '@modelcontextprotocol/sdk',
    '@openai/agents',
    '@opentelemetry/api',
    'ai',
  ]);
  for (const optional of ['@modelcontextprotocol/sdk', 'ai', '@openai/agents']) {
    assert.equal(pkg.peerDependenciesMeta[optional].optional, true, optional);
  }
  assert.deepEqual(Object.keys(pkg.dependencies), ['zod']);
  for (const { file, text } of sources) {
    for (const m of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)';/gm)) {
      const [, typeOnly, spec = ''] = m;
      if (spec.startsWith('./') || spec.startsWith('../contract/') || spec.startsWith('node:')) continue;
      if (spec === '@opentelemetry/api' || spec === 'zod') continue;
      // The MCP SDK is only a type: the wrapper works with any object shaped like its Client.
      assert.ok(typeOnly && spec.startsWith('@modelcontextprotocol/sdk/'), `${file} imports ${spec} at runtime`);
    }
  }
});

test('adapters import nothing at run time; framework integrations use their framework as types only, the rest through the public entry', () => {
  for (const folder of ['adapters', 'frameworks']) {
    const sub = new URL(`${folder}/`, dir);
    for (const file of readdirSync(sub).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(new URL(file, sub), 'utf8');
      for (const m of text.matchAll(/^import\s+(type\s+)?[^'"]*from\s+'([^']+)';/gm)) {
        const [, typeOnly, spec = ''] = m;
        if (spec.startsWith('./') || spec.startsWith('../../contract/')) continue;
        if (folder === 'adapters') assert.ok(spec === '../results.ts', `${folder}/${file} imports ${spec}`);
        else if (spec === 'ai' || spec === '@openai/agents')
          assert.ok(typeOnly, `${folder}/${file} imports ${spec} at run time`);
        else assert.equal(spec, '../index.ts', `${folder}/${file} imports ${spec}: frameworks use the public entry`);
      }
    }
  }
});

test('no attribute name is written as a literal outside the contract', () => {
  for (const { file, text } of sources) {
    // Doc comments may name attributes in backticks; code must use the constants.
    assert.equal(/['"](tooltrail|gen_ai)\.[a-z_.]+['"]/.test(text), false, file);
  }
});

test('the tracer version is the package version', () => {
  assert.equal(pkg.version, INSTRUMENTATION_VERSION);
  assert.equal(pkg.name, '@tooltrail/instrumentation');
});
