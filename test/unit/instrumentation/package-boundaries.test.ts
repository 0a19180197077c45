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
  assert.deepEqual(Object.keys(pkg.peerDependencies).sort(), ['@modelcontextprotocol/sdk', '@opentelemetry/api']);
  assert.equal(pkg.peerDependenciesMeta['@modelcontextprotocol/sdk'].optional, true);
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
