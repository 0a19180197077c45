/**
 * Added latency of `tooltrail mcp-proxy` per tool call on stdio, against calling the same server directly, in the
 * same run (alternating rounds): the official SDK client calls `list_users` (a read: span, completeness, ledger) on
 * the repo's paging server, directly and through the real proxy command, whose spans go over OTLP to a local sink
 * that answers 200. Then the proxy's memory: RSS of its process before and after `--memory-calls` more calls, and
 * (V8 sizes its heap lazily, so RSS alone cannot tell growth from a leak) the heap used after a forced GC, every
 * fifth of `--memory-calls`, of the same relay run in this process (SDK client and McpServer over in-memory pipes).
 *
 *   node --import tsx bench/mcp-proxy-latency.ts [--rounds 6] [--calls 500] [--memory-calls 100000]
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { BatchSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { createGuardStep } from '../mcp-proxy/guard-step.ts';
import { startRelay } from '../mcp-proxy/relay.ts';
import { createConversations } from '../mcp-proxy/session.ts';
import { PAGING_SERVER, ROOT, TOOLTRAIL_BIN } from '../testkit/mcp/proxy-client.ts';
import { type BenchFigure, printBenchReport, spread } from './support/report.ts';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    calls: { type: 'string', default: '500' },
    'memory-calls': { type: 'string', default: '100000' },
  },
});
const rounds = Number(values.rounds);
const calls = Number(values.calls);
const memoryCalls = Number(values['memory-calls']);

// A sink for the proxy's OTLP export: it answers 200 to everything, so export cost is in the measurement.
let exported = 0;
const sink = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    exported += 1;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' });
    res.end();
  });
});
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', () => resolve()));
const otlp = `http://127.0.0.1:${(sink.address() as AddressInfo).port}/v1/traces`;

const server = [process.execPath, '--import', 'tsx', PAGING_SERVER];
async function connect(proxied: boolean): Promise<{ client: Client; pid: number | null }> {
  const args = proxied ? [TOOLTRAIL_BIN, 'mcp-proxy', '--otlp-endpoint', otlp, '--', ...server] : server.slice(1);
  const transport = new StdioClientTransport({ command: process.execPath, args, cwd: ROOT, stderr: 'ignore' });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(transport);
  return { client, pid: transport.pid };
}

const call = (c: Client) => c.callTool({ name: 'list_users', arguments: {} });
async function timed(c: Client, n: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i += 1) {
    const t0 = process.hrtime.bigint();
    await call(c);
    out.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return out;
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number;
};
const rssMb = (pid: number | null) => {
  if (pid === null) return Number.NaN;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : Number.NaN;
};

const direct = await connect(false);
const proxy = await connect(true);
await timed(direct.client, 200);
await timed(proxy.client, 200);
const p50 = { direct: [] as number[], proxy: [] as number[], added: [] as number[] };
const p99 = { direct: [] as number[], proxy: [] as number[], added: [] as number[] };
for (let r = 0; r < rounds; r += 1) {
  // Alternate which goes first, so a slow phase of the shared machine hits both.
  const order = r % 2 === 0 ? (['direct', 'proxy'] as const) : (['proxy', 'direct'] as const);
  const got: Record<string, number[]> = {};
  for (const which of order) got[which] = await timed(which === 'direct' ? direct.client : proxy.client, calls);
  const d = got.direct as number[];
  const p = got.proxy as number[];
  p50.direct.push(pct(d, 50));
  p50.proxy.push(pct(p, 50));
  p50.added.push(pct(p, 50) - pct(d, 50));
  p99.direct.push(pct(d, 99));
  p99.proxy.push(pct(p, 99));
  p99.added.push(pct(p, 99) - pct(d, 99));
  console.log(
    `round ${r + 1}: p50 direct ${pct(d, 50).toFixed(3)} ms, proxied ${pct(p, 50).toFixed(3)} ms; p99 direct ${pct(d, 99).toFixed(3)} ms, proxied ${pct(p, 99).toFixed(3)} ms`,
  );
}

const rssBefore = rssMb(proxy.pid);
const t0 = Date.now();
for (let i = 0; i < memoryCalls; i += 1) await call(proxy.client);
const memorySeconds = (Date.now() - t0) / 1000;
const rssAfter = rssMb(proxy.pid);
await direct.client.close();
await proxy.client.close();
sink.close();

/** The relay in this process: heap used after a forced GC at every fifth of the calls. */
async function heapCheckpoints(n: number): Promise<number[]> {
  // gc() without a command-line flag, so `npm run bench` needs nothing special.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (() => void) | undefined;
  if (typeof gc !== 'function') return [];
  const mcp = new McpServer({ name: 'bench', version: '1.0.0' });
  const page = JSON.stringify({ items: [{ id: 'u1' }, { id: 'u2' }], nextCursor: '2' });
  mcp.registerTool('list_users', { inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text', text: page }],
  }));
  const [serverSide, up] = InMemoryTransport.createLinkedPair();
  const [down, clientSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const drop: SpanExporter = { export: (_spans, done) => done({ code: 0 }), shutdown: async () => {} };
  const provider = new TracerProvider({ spanProcessors: [new BatchSpanProcessor({ exporter: drop })] });
  const relay = await startRelay({
    downstream: down,
    upstream: up,
    tracer: provider.getTracer('bench'),
    policy: { tools: {} },
    guard: createGuardStep({ mode: 'enforce', evidenceWindow: 50 }),
    conversations: createConversations(),
    connectionConversationId: 'bench',
    networkTransport: 'pipe',
    log: () => {},
  });
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(clientSide);
  const out: number[] = [];
  const step = Math.max(1, Math.floor(n / 5));
  for (let i = 1; i <= n; i += 1) {
    await call(client);
    if (i % step === 0) {
      gc();
      out.push(process.memoryUsage().heapUsed / 1024 / 1024);
    }
  }
  await client.close();
  await relay.close();
  await provider.shutdown();
  return out;
}
const heap = await heapCheckpoints(memoryCalls);

const med = (xs: number[]) => spread(xs).value;
console.log(`mcp-proxy on stdio, ${rounds} rounds x ${calls} calls each way (medians of per-round figures):`);
console.log(
  `  p50: direct ${med(p50.direct).toFixed(3)} ms, proxied ${med(p50.proxy).toFixed(3)} ms, added ${med(p50.added).toFixed(3)} ms (target <= 1 ms)`,
);
console.log(
  `  p99: direct ${med(p99.direct).toFixed(3)} ms, proxied ${med(p99.proxy).toFixed(3)} ms, added ${med(p99.added).toFixed(3)} ms`,
);
console.log(`  ratio proxied / direct p50: ${(med(p50.proxy) / med(p50.direct)).toFixed(2)}x`);
console.log(
  `  proxy RSS: ${rssBefore.toFixed(1)} MB before, ${rssAfter.toFixed(1)} MB after ${memoryCalls} more calls (${memorySeconds.toFixed(0)} s; ${exported} OTLP exports)`,
);
console.log(
  heap.length
    ? `  relay heap after GC every ${Math.floor(memoryCalls / 5)} calls (in process): ${heap.map((h) => h.toFixed(1)).join(', ')} MB`
    : '  relay heap: gc() unavailable, not measured',
);

const figures: BenchFigure[] = [
  {
    name: 'added latency p50 (stdio, list_users)',
    ...spread(p50.added),
    unit: 'ms',
    baseline: { name: 'direct p50', value: med(p50.direct) },
    ratio: med(p50.proxy) / med(p50.direct),
    target: '≤ 1 ms',
    met: med(p50.added) <= 1,
  },
  {
    name: 'added latency p99 (stdio, list_users)',
    ...spread(p99.added),
    unit: 'ms',
    baseline: { name: 'direct p99', value: med(p99.direct) },
  },
  {
    name: `proxy RSS growth over ${memoryCalls} calls`,
    value: rssAfter - rssBefore,
    unit: 'MB',
    baseline: { name: 'RSS before', value: rssBefore },
    ratio: rssAfter / rssBefore,
  },
  ...(heap.length
    ? [
        {
          name: `relay heap growth after GC over ${memoryCalls} calls (in process)`,
          value: (heap.at(-1) as number) - (heap[0] as number),
          unit: 'MB',
          baseline: { name: `heap after ${Math.floor(memoryCalls / 5)} calls`, value: heap[0] as number },
          ratio: (heap.at(-1) as number) / (heap[0] as number),
          target: 'flat (≤ 10% growth)',
          met: (heap.at(-1) as number) <= 1.1 * (heap[0] as number),
        },
      ]
    : []),
];
printBenchReport({ bench: 'mcp-proxy-latency', figures });
