/**
 * Collector throughput: a load generator sends OTLP protobuf batches (512 tool-call spans per request, 8 spans per
 * trace) through the collector into the real Kafka on this machine, and, as the baseline in the same run, the same
 * requests to the collector with Kafka replaced by the discard sink (which still splits and encodes per trace).
 * Prints sustained spans/s, p50/p99 request latency, and the collector process's CPU per 10k spans; medians of
 * ROUNDS rounds. The collector runs in a child process so its CPU is its own.
 *
 *   node --import tsx bench/collector-throughput.ts [--seconds 10] [--rounds 3] [--concurrency 8]
 *       [--compression gzip|zstd|lz4|none] [--decode-threads 0] [--producers 1] [--modes discard,kafka]
 *       [--clients platformatic,platformatic:gzip]
 * Each Kafka client of --clients (`client` or `client:codec`, the codec defaulting to --compression) runs in every
 * round, alternated with the others and the discard baseline; the report gives each one's figures and the CPU and
 * p99 ratios of each to the first.
 * The collector child runs with the V8 flags `tooltrail collector` uses (BENCH_DEFAULT_V8=1: without them);
 * BENCH_CHILD_NODE_ARGS adds more (e.g. --cpu-prof).
 */
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { DEFAULT_KAFKA_COMPRESSION, loadCollectorConfig } from '../collector/config.ts';
import { createCollector } from '../collector/factory.ts';
import { COLLECTOR_NODE_FLAGS } from '../collector/node-flags.ts';
import { Attr, EXECUTE_TOOL, GenAi, toolSpanName } from '../contract/index.ts';
import {
  createKafkaClient,
  deleteTopics,
  ensureTopics,
  KAFKA_CLIENTS,
  type KafkaCompression,
} from '../platform/kafka/index.ts';
import { metricValue } from '../platform/metrics/index.ts';
import { encodeExportTraceServiceRequest, type KeyValue, type Span } from '../platform/otlp/index.ts';
import { loadServicesConfig } from '../services/config.ts';
import { clientsOf, compressionOf, type KafkaVariant, variantsOf } from './support/kafka-clients.ts';
import { postOtlp } from './support/post-otlp.ts';
import { printBenchReport, spread } from './support/report.ts';

const TOKEN = 'bench-token-0123456789abcdef';
const SPANS_PER_REQUEST = 512;
const SPANS_PER_TRACE = 8;

const { values: args } = parseArgs({
  options: {
    seconds: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8' },
    compression: { type: 'string', default: DEFAULT_KAFKA_COMPRESSION },
    'decode-threads': { type: 'string', default: '0' },
    producers: { type: 'string', default: '1' },
    /** Comma-separated subset of discard,kafka (profiling one side); the report needs both. */
    modes: { type: 'string', default: 'discard,kafka' },
    /** The Kafka clients compared (platform/kafka), alternated round after round; the first is the baseline. */
    clients: { type: 'string', default: KAFKA_CLIENTS.join(',') },
    client: { type: 'string' },
    serve: { type: 'string' },
    topic: { type: 'string' },
  },
});

// ---- parent: load generator and report ---------------------------------------------------------------------
function kv(key: string, value: KeyValue['value']): KeyValue {
  return { key, value };
}

function makeBody(): Buffer {
  const spans: Span[] = [];
  const now = BigInt(Date.now()) * 1_000_000n;
  for (let t = 0; t < SPANS_PER_REQUEST / SPANS_PER_TRACE; t++) {
    const traceId = randomBytes(16);
    for (let s = 0; s < SPANS_PER_TRACE; s++) {
      const start = now + BigInt(t * 1000 + s);
      spans.push({
        traceId,
        spanId: randomBytes(8),
        parentSpanId: s === 0 ? null : randomBytes(8),
        name: toolSpanName('list_service_accounts'),
        kind: 1,
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: (start + 2_500_000n).toString(),
        attributes: [
          kv(GenAi.OPERATION_NAME, { stringValue: EXECUTE_TOOL }),
          kv(GenAi.TOOL_NAME, { stringValue: 'list_service_accounts' }),
          kv(GenAi.TOOL_CALL_ID, { stringValue: `call_${randomBytes(6).toString('hex')}` }),
          kv(GenAi.CONVERSATION_ID, { stringValue: `session-${t}` }),
          kv(GenAi.AGENT_NAME, { stringValue: 'ops-agent' }),
          kv(Attr.EFFECT, { stringValue: s % 4 === 3 ? 'mutation' : 'read' }),
          kv(Attr.RESULT_STATUS, { stringValue: 'partial' }),
          kv(Attr.RESULT_COMPLETE, { boolValue: false }),
          kv(Attr.RESULT_REASONS, { arrayValue: { values: [{ stringValue: 'MORE_PAGES_AVAILABLE' }] } }),
          kv(Attr.RESULT_ITEM_COUNT, { intValue: 50 }),
          kv(Attr.RESULT_CONTINUATION, { stringValue: 'next_cursor' }),
          kv(Attr.SCOPE_RESOURCE, { stringValue: 'service_accounts' }),
          kv(Attr.SESSION_SEQUENCE, { intValue: s + 1 }),
        ],
        status: { code: 0 },
      });
    }
  }
  return Buffer.from(
    encodeExportTraceServiceRequest({
      resourceSpans: [
        {
          resource: { attributes: [kv('service.name', { stringValue: 'ops-agent' })] },
          scopeSpans: [{ scope: { name: 'tooltrail', version: '0.1.0' }, spans }],
        },
      ],
    }),
  );
}

interface RoundResult {
  spansPerSec: number;
  p50: number;
  p99: number;
  cpuMsPer10k: number;
  non200: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** A round's collector: the discard sink, or Kafka through one client. */
type Side = 'discard' | KafkaVariant;
const labelOf = (side: Side) => (side === 'discard' ? side : side.label);

async function startChild(side: Side, topic: string) {
  const child = fork(
    fileURLToPath(import.meta.url),
    [
      '--serve',
      side === 'discard' ? 'discard' : 'kafka',
      ...(side === 'discard' ? [] : ['--client', side.client]),
      '--topic',
      topic,
      '--compression',
      side === 'discard' ? compressionOf(args.compression) : side.compression,
      '--decode-threads',
      args['decode-threads'] ?? '0',
      '--producers',
      args.producers ?? '1',
    ],
    {
      // The flags `tooltrail collector` runs with (it re-executes itself with them), plus any given for profiling.
      execArgv: [
        '--import',
        'tsx',
        ...(process.env.BENCH_DEFAULT_V8 ? [] : COLLECTOR_NODE_FLAGS),
        ...(process.env.BENCH_CHILD_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      ],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  );
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { type: string; port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`collector child exited with ${code}`)));
  });
  const cpu = () =>
    new Promise<{ micros: number; accepted: number }>((resolve) => {
      child.once('message', (m: { micros: number; accepted: number }) => resolve(m));
      child.send({ type: 'cpu' });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.send({ type: 'stop' });
    });
  return { port, cpu, stop };
}

async function load(port: number, bodies: Buffer[], seconds: number, concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let ok = 0;
  let non200 = 0;
  const deadline = performance.now() + seconds * 1_000;
  let i = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      const body = bodies[i++ % bodies.length] as Buffer;
      const t0 = performance.now();
      const status = await postOtlp(agent, port, body, TOKEN);
      latencies.push(performance.now() - t0);
      if (status === 200) ok++;
      else non200++;
    }
  };
  const t0 = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - t0) / 1_000;
  agent.destroy();
  latencies.sort((a, b) => a - b);
  return { spans: ok * SPANS_PER_REQUEST, elapsed, latencies, non200 };
}

async function round(
  side: Side,
  topic: string,
  bodies: Buffer[],
  seconds: number,
  concurrency: number,
): Promise<RoundResult> {
  const child = await startChild(side, topic);
  try {
    await load(child.port, bodies, 2, concurrency); // warm-up: JIT, connections, producer
    const before = await child.cpu();
    const r = await load(child.port, bodies, seconds, concurrency);
    const after = await child.cpu();
    if (side !== 'discard' && after.accepted - before.accepted !== r.spans) {
      throw new Error(
        `Kafka acknowledged ${after.accepted - before.accepted} spans, the clients saw ${r.spans} accepted`,
      );
    }
    return {
      spansPerSec: r.spans / r.elapsed,
      p50: percentile(r.latencies, 50),
      p99: percentile(r.latencies, 99),
      cpuMsPer10k: r.spans > 0 ? ((after.micros - before.micros) / 1_000 / r.spans) * 10_000 : Number.NaN,
      non200: r.non200,
    };
  } finally {
    await child.stop();
  }
}

async function main() {
  const seconds = Number(args.seconds);
  const rounds = Number(args.rounds);
  const concurrency = Number(args.concurrency);
  const services = loadServicesConfig();
  const kafka = createKafkaClient({ brokers: services.kafka.brokers, clientId: 'bench-admin', quiet: true });
  const topic = `otlp_spans_bench_${Date.now().toString(36)}`;
  await ensureTopics(kafka, [{ topic, numPartitions: 3 }]);
  const bodies = Array.from({ length: 16 }, makeBody);
  console.log(
    `collector throughput: ${SPANS_PER_REQUEST} spans/request (${SPANS_PER_TRACE}/trace, ~${Math.round(bodies[0]!.length / 1024)} KiB protobuf), ` +
      `${concurrency} concurrent clients, ${seconds}s x ${rounds} rounds, Kafka ${services.kafka.brokers.join(',')} compression ${args.compression}, ${args['decode-threads']} decode thread(s), ${args.producers} producer(s), node ${process.env.BENCH_DEFAULT_V8 ? '(V8 defaults)' : COLLECTOR_NODE_FLAGS.join(' ')}`,
  );
  const clients = args.modes?.split(',').includes('kafka')
    ? variantsOf(args.clients, compressionOf(args.compression))
    : [];
  const sides: Side[] = [...(args.modes?.split(',').includes('discard') ? ['discard' as const] : []), ...clients];
  const results = new Map<Side, RoundResult[]>(sides.map((s) => [s, []]));
  try {
    for (let i = 0; i < rounds; i++) {
      // Alternated, and the order turned each round, so neither client always follows the other.
      const order = i % 2 === 0 ? sides : [...sides].reverse();
      for (const side of order) {
        const r = await round(side, topic, bodies, seconds, concurrency);
        results.get(side)?.push(r);
        console.log(
          `  round ${i + 1} ${labelOf(side).padEnd(18)} ${Math.round(r.spansPerSec).toLocaleString('en-US').padStart(9)} spans/s  p50 ${r.p50.toFixed(1)} ms  p99 ${r.p99.toFixed(1)} ms  CPU ${r.cpuMsPer10k.toFixed(1)} ms/10k spans${r.non200 ? `  (${r.non200} non-200)` : ''}`,
        );
      }
    }
  } finally {
    await deleteTopics(kafka, [topic]).catch(() => {});
  }
  const d = results.get('discard') ?? [];
  if (clients.length === 0 || d.length === 0) return;
  const summary = (side: Side) => {
    const rs = results.get(side) ?? [];
    return {
      spansPerSec: median(rs.map((r) => r.spansPerSec)),
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      cpu: median(rs.map((r) => r.cpuMsPer10k)),
    };
  };
  const ds = summary('discard');
  const first = clients[0] as KafkaVariant;
  const fs = summary(first);
  console.log('medians:');
  for (const c of clients) {
    const k = summary(c);
    console.log(
      `  into Kafka (${c.label.padEnd(18)}) ${Math.round(k.spansPerSec).toLocaleString('en-US').padStart(9)} spans/s  p50 ${k.p50.toFixed(1)} ms  p99 ${k.p99.toFixed(1)} ms  collector CPU ${k.cpu.toFixed(1)} ms/10k spans`,
    );
  }
  console.log(
    `  discard baseline                  ${Math.round(ds.spansPerSec).toLocaleString('en-US').padStart(9)} spans/s  p50 ${ds.p50.toFixed(1)} ms  p99 ${ds.p99.toFixed(1)} ms  collector CPU ${ds.cpu.toFixed(1)} ms/10k spans`,
  );
  for (const c of clients) {
    const k = summary(c);
    console.log(
      `  ratio ${c.label}/discard: throughput ${(k.spansPerSec / ds.spansPerSec).toFixed(2)}x, CPU per span ${(k.cpu / ds.cpu).toFixed(2)}x; target >= 50,000 spans/s into Kafka: ${k.spansPerSec >= 50_000 ? 'met' : 'NOT met'}`,
    );
    if (c !== first) {
      console.log(
        `  ratio ${c.label}/${first.label}: CPU per span ${(k.cpu / fs.cpu).toFixed(2)}x, p99 ${(k.p99 / fs.p99).toFixed(2)}x, throughput ${(k.spansPerSec / fs.spansPerSec).toFixed(2)}x`,
      );
    }
  }
  // The table's median is the midpoint for an even number of rounds, the lines above take the upper one.
  const of = (side: Side, key: 'spansPerSec' | 'p99' | 'cpuMsPer10k') =>
    spread((results.get(side) ?? []).map((r) => r[key]));
  const dThroughput = of('discard', 'spansPerSec').value;
  const dCpu = of('discard', 'cpuMsPer10k').value;
  printBenchReport({
    bench: 'collector-throughput',
    figures: clients.flatMap((c) => {
      // The first client keeps the figures' historical names; the others say which client they are.
      const suffix = c === first ? '' : ` (${c.label})`;
      const kThroughput = of(c, 'spansPerSec');
      const kCpu = of(c, 'cpuMsPer10k');
      const kP99 = of(c, 'p99');
      return [
        {
          name: `into Kafka${suffix}`,
          ...kThroughput,
          unit: 'spans/s',
          baseline: { name: 'discard sink', value: dThroughput },
          ratio: kThroughput.value / dThroughput,
          target: '≥ 50,000 spans/s',
          met: kThroughput.value >= 50_000,
        },
        {
          name: `collector CPU into Kafka${suffix}`,
          ...kCpu,
          unit: 'ms/10k spans',
          baseline:
            c === first
              ? { name: 'discard sink', value: dCpu }
              : { name: first.label, value: of(first, 'cpuMsPer10k').value },
          ratio: c === first ? kCpu.value / dCpu : kCpu.value / of(first, 'cpuMsPer10k').value,
        },
        {
          name: `p99 request latency into Kafka${suffix}`,
          ...kP99,
          unit: 'ms',
          ...(c === first
            ? {}
            : {
                baseline: { name: first.label, value: of(first, 'p99').value },
                ratio: kP99.value / of(first, 'p99').value,
              }),
        },
      ];
    }),
  });
}

// ---- child: the collector under test -------------------------------------------------------------------------
async function serve(mode: string) {
  const config = loadCollectorConfig({
    env: { ...process.env, TOOLTRAIL_COLLECTOR_TOKENS: `${TOKEN}=bench` },
    overrides: {
      http: { host: '127.0.0.1', port: 0 },
      sink: mode === 'kafka' ? 'kafka' : 'discard',
      decodeThreads: Number(args['decode-threads']),
      kafka: {
        topic: args.topic ?? 'otlp_spans_bench',
        createTopic: false,
        compression: args.compression as KafkaCompression,
        producers: Number(args.producers),
        ...(args.client ? { client: clientsOf(args.client)[0] } : {}),
      },
    },
  });
  const collector = await createCollector(config, { quiet: true, notify: () => {} });
  const address = await collector.start();
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'cpu') {
      const u = process.cpuUsage();
      process.send?.({
        type: 'cpu',
        micros: u.user + u.system,
        accepted: await metricValue(collector.metrics.spansAccepted),
      });
    } else if (m.type === 'stop') {
      collector.close().then(() => process.exit(0));
    }
  });
  process.send?.({ type: 'ready', port: Number(new URL(address).port) });
}

if (args.serve) await serve(args.serve);
else await main();
