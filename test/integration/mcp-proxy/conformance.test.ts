/**
 * The official MCP conformance suite (`@modelcontextprotocol/conformance`) against a server that exercises the
 * protocol (`@modelcontextprotocol/server-everything` over Streamable HTTP), directly and through the proxy, in the
 * same test: every scenario the bare server passes, the proxied one passes. The same against the repo's protocol
 * server, whose tools send progress, log messages, sampling and elicitation requests back during a call (the
 * scenarios server-everything cannot pass, and the relay's hardest paths). Client mode too, where it applies
 * (initialize, tools_call): the same SDK client directly and through the proxy's client side.
 * The suite needs Node 22 (fs.globSync): test/compat/node22 brings the npm registry's binary.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { loadMcpProxyConfig } from '../../../mcp-proxy/config.ts';
import { type RunningProxy, startMcpProxy } from '../../../mcp-proxy/factory.ts';
import { freePort } from '../../../services/process.ts';
import { ROOT, serverBin } from '../../../testkit/mcp/proxy-client.ts';

const compat = join(ROOT, 'test/compat/node22');
const node22 = join(compat, 'node_modules/.bin/node');
const suite = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const LOCK = join(tmpdir(), 'tooltrail-compat-node22.lock');

let everything: ChildProcess;
let protocol: ChildProcess;
let proxy: RunningProxy;
let protocolProxy: RunningProxy;
let bareUrl: string;
let protocolUrl: string;

/** Starts a server that prints `listening` on stderr once it accepts connections. */
async function startServer(args: string[], port: number): Promise<ChildProcess> {
  const child = spawn(process.execPath, args, {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
    cwd: ROOT,
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr?.on('data', (c: Buffer) => {
      err += c.toString();
      if (err.includes('listening')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited ${code}: ${err}`)));
  });
  return child;
}

before(async () => {
  if (!existsSync(node22)) {
    const install = 'test -x node_modules/.bin/node || npm ci --no-audit --no-fund';
    const r = spawnSync('flock', [LOCK, 'sh', '-c', install], { cwd: compat, encoding: 'utf8', timeout: 300_000 });
    assert.equal(r.status, 0, `npm ci in test/compat/node22 failed:\n${r.stderr}`);
  }
  const port = await freePort();
  everything = await startServer([serverBin('server-everything'), 'streamableHttp'], port);
  bareUrl = `http://127.0.0.1:${port}/mcp`;
  proxy = await startMcpProxy(loadMcpProxyConfig({ upstreamUrl: bareUrl, port: 0, otlpEndpoint: 'none' }), {
    log: () => {},
  });
  const protocolPort = await freePort();
  protocol = await startServer(['--import', 'tsx', join(ROOT, 'testkit/mcp/protocol-server.ts')], protocolPort);
  protocolUrl = `http://127.0.0.1:${protocolPort}/mcp`;
  protocolProxy = await startMcpProxy(loadMcpProxyConfig({ upstreamUrl: protocolUrl, port: 0, otlpEndpoint: 'none' }), {
    log: () => {},
  });
});

after(async () => {
  await proxy?.close();
  await protocolProxy?.close();
  everything?.kill();
  protocol?.kill();
});

/** Runs the suite (asynchronously: the proxy under test lives in this process) and reads its summary. */
async function runSuite(args: string[]): Promise<Map<string, { passed: number; failed: number }>> {
  const cwd = mkdtempSync(join(tmpdir(), 'tt-conformance-'));
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const child = spawn(node22, [suite, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const timer = setTimeout(() => child.kill(), 300_000);
  await new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve());
  }).finally(() => clearTimeout(timer));
  const r = { stdout, stderr };
  // `✓ name: 2 passed, 0 failed` lines of the suite's summary, by scenario.
  const out = new Map<string, { passed: number; failed: number }>();
  for (const m of r.stdout.matchAll(/^[✓✗] (\S+): (\d+) passed, (\d+) failed$/gmu)) {
    out.set(m[1] as string, { passed: Number(m[2]), failed: Number(m[3]) });
  }
  // Client mode runs one scenario and prints `Passed: 1/1, 0 failed, 0 warnings` (on stderr) instead.
  const single = /^Passed: (\d+)\/(\d+), (\d+) failed/m.exec(`${r.stdout}\n${r.stderr}`);
  const scenario = args[args.indexOf('--scenario') + 1];
  if (out.size === 0 && single && args[0] === 'client' && scenario) {
    out.set(scenario, { passed: Number(single[1]), failed: Number(single[3]) });
  }
  assert.ok(
    out.size > 0,
    `no scenario summary in the suite's output:\n${r.stdout.slice(-2000)}\n${r.stderr.slice(-2000)}`,
  );
  return out;
}

const fullyPassed = (m: Map<string, { passed: number; failed: number }>) =>
  [...m].filter(([, c]) => c.failed === 0 && c.passed > 0).map(([name]) => name);

test('server mode: the proxy passes every conformance scenario and check the bare server passes', async (t) => {
  const bare = await runSuite(['server', '--url', bareUrl]);
  const proxied = await runSuite(['server', '--url', proxy.describe]);
  const checks = (m: typeof bare) => [...m.values()].reduce((n, c) => n + c.passed, 0);
  t.diagnostic(`bare: ${bare.size} scenarios, ${fullyPassed(bare).length} fully passed, ${checks(bare)} checks passed`);
  t.diagnostic(
    `proxied: ${proxied.size} scenarios, ${fullyPassed(proxied).length} fully passed, ${checks(proxied)} checks passed`,
  );
  assert.ok(
    fullyPassed(bare).length >= 10,
    `the bare server passes too little to compare: ${fullyPassed(bare).join(', ')}`,
  );
  for (const [name, c] of bare) {
    const p = proxied.get(name);
    assert.ok(p, `scenario ${name} missing from the proxied run`);
    assert.ok(p.passed >= c.passed, `${name}: bare passed ${c.passed} checks, proxied ${p.passed}`);
  }
});

test('server mode: progress, logging, sampling and elicitation during a call pass through the proxy as they pass directly', async (t) => {
  const scenarios = [
    'tools-call-with-progress',
    'tools-call-with-logging',
    'tools-call-sampling',
    'tools-call-elicitation',
  ];
  const bare = await runSuite(['server', '--url', protocolUrl]);
  const proxied = await runSuite(['server', '--url', protocolProxy.describe]);
  t.diagnostic(
    `protocol server bare: ${fullyPassed(bare).length} fully passed; proxied: ${fullyPassed(proxied).length}`,
  );
  for (const name of scenarios)
    assert.ok(fullyPassed(bare).includes(name), `the bare protocol server fails ${name}: nothing to compare`);
  for (const [name, c] of bare) {
    assert.ok(
      (proxied.get(name)?.passed ?? 0) >= c.passed,
      `${name}: bare passed ${c.passed} checks, proxied ${proxied.get(name)?.passed}`,
    );
  }
});

test('client mode: the proxy client side passes the scenarios the same SDK client passes directly', async (t) => {
  const client = join(ROOT, 'testkit/mcp/conformance-client.ts');
  for (const scenario of ['initialize', 'tools_call']) {
    // tsx by absolute URL: the suite runs the command in its own working directory.
    const command = (extra: string) => `${process.execPath} --import ${import.meta.resolve('tsx')} ${client}${extra}`;
    const bare = await runSuite(['client', '--command', command(''), '--scenario', scenario]);
    const proxied = await runSuite(['client', '--command', command(' --through-proxy'), '--scenario', scenario]);
    t.diagnostic(`${scenario}: bare ${JSON.stringify([...bare])}, proxied ${JSON.stringify([...proxied])}`);
    assert.deepEqual(fullyPassed(bare), [scenario], `the bare client fails ${scenario}: nothing to compare`);
    assert.deepEqual(fullyPassed(proxied), [scenario]);
  }
});
