/** The policy file and the proxy's configuration: effects from annotations unless the policy says otherwise; every bad key reported. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { PolicyError, parsePolicy, resolveEffect, valuesAt } from '../../../contract/index.ts';
import { loadMcpProxyConfig, McpProxyConfigError } from '../../../mcp-proxy/config.ts';

test('effect follows the annotations: read-only is a read, destructiveHint false is an unguarded mutation', () => {
  assert.deepEqual(resolveEffect(undefined, { readOnlyHint: true }), {
    effect: 'read',
    destructive: false,
    source: 'annotations',
  });
  assert.deepEqual(resolveEffect(undefined, { readOnlyHint: false, destructiveHint: false }), {
    effect: 'mutation',
    destructive: false,
    source: 'annotations',
  });
  assert.equal(resolveEffect(undefined, { readOnlyHint: false, destructiveHint: true }).destructive, true);
});

test('an unannotated tool is a destructive mutation (MCP defaults)', () => {
  assert.deepEqual(resolveEffect(undefined, undefined), { effect: 'mutation', destructive: true, source: 'default' });
  assert.equal(resolveEffect(undefined, {}).destructive, true);
});

test('the policy overrides the annotations', () => {
  assert.equal(resolveEffect({ effect: 'mutation' }, { readOnlyHint: true }).effect, 'mutation');
  assert.equal(resolveEffect({ effect: 'read' }, { destructiveHint: true }).effect, 'read');
  assert.equal(resolveEffect({ destructive: false }, { destructiveHint: true }).destructive, false);
});

test('targets come from the arguments at the policy path', () => {
  assert.deepEqual(valuesAt({ entityNames: ['a', 'b'] }, 'entityNames'), ['a', 'b']);
  assert.deepEqual(valuesAt({ items: [{ id: 1 }, { id: 2 }] }, 'items.*.id'), ['1', '2']);
  assert.deepEqual(valuesAt({ path: '/x' }, 'path'), ['/x']);
  assert.deepEqual(valuesAt({}, 'missing.key'), []);
});

test('a bad policy reports every problem with its key', () => {
  assert.throws(
    () => parsePolicy({ tools: { del: { effect: 'delete', basis: 'maybe', extra: 1 } }, evidenceWindow: 0 }),
    (err: unknown) => {
      assert.ok(err instanceof PolicyError);
      const text = err.problems.join('\n');
      assert.match(text, /policy\.tools\.del\.effect/);
      assert.match(text, /policy\.tools\.del\.basis/);
      assert.match(text, /policy\.tools\.del/);
      assert.match(text, /policy\.evidenceWindow/);
      return true;
    },
  );
});

test('the configuration reports every problem at once, each with its key', () => {
  assert.throws(
    () => loadMcpProxyConfig({ guard: 'block', otlpEndpoint: 'ftp://x', port: 'abc', otlpHeaders: ['nocolon'] }),
    (err: unknown) => {
      assert.ok(err instanceof McpProxyConfigError);
      for (const key of [
        'mcp-proxy.upstream',
        'mcp-proxy.guard',
        'mcp-proxy.otlp.endpoint',
        'mcp-proxy.listen.port',
        'mcp-proxy.otlp.headers',
      ]) {
        assert.ok(err.message.includes(key), `${key} in ${err.message}`);
      }
      return true;
    },
  );
  assert.throws(() => loadMcpProxyConfig({ command: ['srv'], upstreamUrl: 'http://x' }), /not both/);
});

test('a policy file is loaded from YAML and its problems are named by file and key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'tt-policy-'));
  const good = join(dir, 'good.yaml');
  writeFileSync(
    good,
    'tools:\n  delete_entities:\n    resource: graph\n    basis: presence\n    targets: entityNames\n',
  );
  const config = loadMcpProxyConfig({ command: ['srv'], policyFile: good });
  assert.equal(config.policy.tools.delete_entities?.targets, 'entityNames');
  assert.equal(config.guard, 'enforce');
  const bad = join(dir, 'bad.yaml');
  writeFileSync(bad, 'tools:\n  x:\n    targets: "not a path!"\n');
  assert.throws(() => loadMcpProxyConfig({ command: ['srv'], policyFile: bad }), /bad\.yaml\.tools\.x\.targets/);
});
