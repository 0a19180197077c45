/** The README stays true: its examples are the ones the tests run, its commands exist. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { test } from 'node:test';
import { connectThroughProxy, serverBin } from '../../../testkit/mcp/proxy-client.ts';

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

test("the README's Python example is a verbatim excerpt of examples/python/agent.py, which the e2e test runs", () => {
  const block = /```python\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'the README has a python block');
  const agent = readFileSync(resolve(root, 'examples/python/agent.py'), 'utf8');
  assert.ok(agent.includes(block), 'the python block appears in agent.py as written');
  for (const call of ['"read-1", "read"', '"mut-1", "mutation"', 'def tool_span('])
    assert.ok(block.includes(call), call);
});

test("the README's MCP client entry runs: the proxy before the memory server stops the delete after an unknown read", async () => {
  const json = /```json\n([\s\S]*?)```/.exec(readme.slice(readme.indexOf('mcp-proxy')))?.[1];
  assert.ok(json, 'the README has the MCP client entry');
  const entry = (JSON.parse(json) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers
    .memory;
  assert.equal(entry?.command, 'npx');
  const args = entry.args;
  assert.deepEqual(args.slice(0, 2), ['tooltrail', 'mcp-proxy']);
  const split = args.indexOf('--');
  // `npx tooltrail` is this checkout's bin; `npx -y <server>` the server npm ci installed (offline).
  assert.deepEqual(args.slice(split + 1), ['npx', '-y', '@modelcontextprotocol/server-memory']);
  const dir = mkdtempSync(join(tmpdir(), 'tt-readme-mcp-'));
  const memory = join(dir, 'memory.jsonl');
  // The spans go nowhere here (nothing of this unit test listens): what the client sees is the point.
  const proxied = await connectThroughProxy({
    server: [process.execPath, serverBin('server-memory')],
    flags: [...args.slice(2, split), '--otlp-endpoint', 'none'],
    env: { MEMORY_FILE_PATH: memory },
  });
  try {
    const { client } = proxied;
    await client.callTool({
      name: 'create_entities',
      arguments: { entities: [{ name: 'svc-old', entityType: 'account', observations: ['no owner'] }] },
    });
    await client.callTool({ name: 'search_nodes', arguments: { query: 'svc-old' } });
    const stopped = await client.callTool({ name: 'delete_entities', arguments: { entityNames: ['svc-old'] } });
    assert.equal(stopped.isError, true, JSON.stringify(stopped));
    assert.match(JSON.stringify(stopped.content), /was not sent to the server/);
    assert.match(readFileSync(memory, 'utf8'), /svc-old/, 'the delete never reached the server');
  } finally {
    await proxied.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
