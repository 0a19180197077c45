/**
 * Ingest benchmark, on this machine's real Kafka and ClickHouse:
 *
 * 1. Throughput: rows/s from a pre-filled topic (collector-shaped messages: one trace of 8 tool spans, or
 *    `--spans-per-message`, plus its parent span per message) into ClickHouse by `tooltrail ingest` (exactly-once
 *    path: batch log, dedup tokens, commits), timed from the consumer group turning STABLE to the last row visible
 *    (the start and the group join before are start-up, printed apart with the rate counting it). Baseline in the
 *    same run: the ingest's ClickHouse writer alone inserting the same rows already flattened in memory (no Kafka,
 *    no protobuf decode, no bookkeeping) -- the ceiling the consumer can approach.
 * 2. End-to-end latency at a steady rate (default 5,000 spans/s): span sent to the collector (OTLP/HTTP protobuf,
 *    Kafka sink) -> row visible to a ClickHouse query; p50/p99. Collector and ingest run as child processes.
 * 3. Bytes on disk per tool call after `OPTIMIZE ... FINAL`.
 *
 *   node --import tsx bench/ingest-throughput.ts [--rows 200000] [--spans-per-message 8] [--rounds 3] [--rate 5000] [--seconds 20]
 *     [--skip-latency] [--digests]   (--digests: record audit digests in the ingest rounds, as `tooltrail ingest` does)
 *     [--clients platformatic] [--compression zstd|gzip|lz4|none]   (the pre-filled topic's codec)
 *
 * Each Kafka client of --clients (default: the default client alone) runs the ingest rounds and the latency run, alternated
 * with the others in one run (the order turned each round); the figures of every client after the first carry its
 * name and their ratio to the first. In the latency run the collector and the ingest both use the round's client.
 *
 * Prints medians over the rounds. Targets (issue 5): >= 100,000 rows/s; p99 <= 2 s.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { Agent } from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDigestRecorder } from '../audit/recorder.ts';
import { DEFAULT_KAFKA_COMPRESSION, loadCollectorConfig } from '../collector/config.ts';
import { createCollector } from '../collector/factory.ts';
import { type IngestConfig, loadIngestConfig } from '../ingest/config.ts';
import { emptyFlattenResult, flattenInto } from '../ingest/flatten.ts';
import { startIngest } from '../ingest/service.ts';
import { createClickHouseWriter } from '../ingest/writer.ts';
import { type ClickHouseClient, clickHouseOf } from '../platform/clickhouse.ts';
import {
  createIdempotentProducer,
  createKafkaClient,
  DEFAULT_KAFKA_CLIENT,
  deleteTopics,
  ensureTopics,
  fetchConsumerLag,
  KAFKA_CLIENT_ENV,
  type KafkaClientKind,
  MESSAGE_ID_HEADER,
  messageIdBytes,
} from '../platform/kafka/index.ts';
import { decodeExportTraceServiceRequest, encodeExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { DEFAULT_RETENTION_DAYS } from '../schema/config.ts';
import { dropDatabase, migrateUp } from '../schema/migrations.ts';
import { loadServicesConfig } from '../services/config.ts';
import { syntheticMessage, syntheticRequest } from '../testkit/ingest.ts';
import { untilGroupStable } from './support/group-stable.ts';
import { clientsOf, compressionOf } from './support/kafka-clients.ts';
import { postOtlp } from './support/post-otlp.ts';
import { type BenchFigure, printBenchReport, spread } from './support/report.ts';
import { localClickHouseCpu } from './support/server-cpu.ts';
import { benchSql, rowCount } from './support/sql.ts';

const PARTITIONS = 3;

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    /** Tool spans per message (one trace each): 8 as an SDK batch of small traces; 200 as the cluster soak's requests. */
    'spans-per-message': { type: 'string', default: '8' },
    rounds: { type: 'string', default: '3' },
    rate: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '20' },
    'skip-latency': { type: 'boolean', default: false },
    /** The Kafka clients compared (platform/kafka), alternated round after round; the first is the baseline. */
    clients: { type: 'string', default: DEFAULT_KAFKA_CLIENT },
    // Record tamper-evidence digests as `tooltrail ingest` does (cli/commands/ingest/run.ts); off by default (comparable runs).
    digests: { type: 'boolean', default: false },
    /** The codec of the pre-filled topic's batches (default: the collector's). */
    compression: { type: 'string', default: DEFAULT_KAFKA_COMPRESSION },
    serve: { type: 'string' },
  },
});

const SPANS_PER_MESSAGE = Number(args['spans-per-message']);
const svc = loadServicesConfig();
const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** CPU ms used so far by the ClickHouse server `tooltrail services up` started (undefined when it is not local). */
const serverCpuMs = localClickHouseCpu(svc.home) ?? (() => undefined);

/** ClickHouse CPU us per row between two serverCpuMs() readings. */
function serverCpuPerRow(before: number | undefined, after: number | undefined, rows: number): number | undefined {
  return before === undefined || after === undefined ? undefined : ((after - before) * 1000) / rows;
}

function clickhouse(): ClickHouseClient {
  return clickHouseOf(svc.clickhouse, { requestTimeoutMs: 120_000 });
}

async function freshDb(ch: ClickHouseClient, name: string): Promise<string> {
  const database = `bench_ingest_${name}_${stamp()}`;
  await migrateUp(ch, { database, retentionDays: DEFAULT_RETENTION_DAYS });
  return database;
}

function ingestConfig(topic: string, database: string, groupId: string, client?: KafkaClientKind): IngestConfig {
  const config = loadIngestConfig({ topic, groupId, database, deadLetterTopic: `${topic}_dlq`, createTopics: true });
  return client ? { ...config, kafka: { ...config.kafka, client } } : config;
}

// ---------------------------------------------------------------------------------------------- throughput

/** Node and ClickHouse server CPU per row of a round. */
function cpuText(r: ThroughputRound): string {
  const server = r.serverCpuUsPerRow === undefined ? 'n/a' : `${r.serverCpuUsPerRow.toFixed(1)} us`;
  return `Node ${r.cpuUsPerRow.toFixed(1)} us + ClickHouse ${server}`;
}

async function prefill(topic: string, messages: number): Promise<void> {
  const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-ingest', quiet: true });
  await ensureTopics(kafka, [{ topic, numPartitions: PARTITIONS }]);
  const producer = createIdempotentProducer(kafka, { compression: compressionOf(args.compression) });
  await producer.connect();
  const startMs = Date.now();
  for (let i = 0; i < messages; i += 200) {
    const batch = [];
    for (let j = i; j < Math.min(messages, i + 200); j++) {
      const value = syntheticMessage({
        tenant: 'bench',
        toolSpans: SPANS_PER_MESSAGE,
        seed: j,
        startMs,
        warningEvery: 16,
      });
      // As the collector writes them: with its id header, so the ingest does not hash the value itself.
      batch.push({ key: `trace-${j}`, value, headers: { [MESSAGE_ID_HEADER]: messageIdBytes(value) } });
    }
    await producer.send(topic, batch);
  }
  await producer.disconnect();
}

interface ThroughputRound {
  rowsPerSec: number;
  toolCallsPerSec: number;
  cpuUsPerRow: number;
  /** ClickHouse server CPU per row (undefined when the server is not a local process). */
  serverCpuUsPerRow: number | undefined;
  /** Ingest rounds: from starting the ingest to its consumer group turning STABLE (start, group join). */
  startupMs?: number;
  /** Ingest rounds: all rows over the whole round, start-up included. */
  withStartupRowsPerSec?: number;
}

async function ingestRound(
  ch: ClickHouseClient,
  topic: string,
  expectedToolCalls: number,
  client: KafkaClientKind,
): Promise<ThroughputRound> {
  const database = await freshDb(ch, 'tp');
  const groupId = `bench-${stamp()}`;
  const config = ingestConfig(topic, database, groupId, client);
  const started = performance.now();
  const ingest = await startIngest(config, {
    log: () => {},
    ...(args.digests ? { batchStored: (c: ClickHouseClient) => createDigestRecorder(c, { database }) } : {}),
  });
  // Throughput is timed from the group turning STABLE to the last row, as bench/anchor times both sides: the
  // group join before the first fetch (0.3-0.5 s here) is start-up, reported apart, not rows/s.
  const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-ingest', quiet: true });
  await untilGroupStable(kafka, groupId, { everyMs: 10 });
  let n = await rowCount(ch, database, 'tool_calls');
  const firstMs = performance.now();
  const firstToolCalls = n;
  const c0 = cpuMs();
  const s0 = serverCpuMs();
  while (n < expectedToolCalls) {
    await sleep(50);
    n = await rowCount(ch, database, 'tool_calls');
  }
  const lastMs = performance.now();
  const cpu = cpuMs() - c0;
  const s1 = serverCpuMs();
  await ingest.stop();
  const rows = n + (await rowCount(ch, database, 'spans')) + (await rowCount(ch, database, 'tool_call_warnings'));
  if (n !== expectedToolCalls) throw new Error(`expected ${expectedToolCalls} tool calls, found ${n}`);
  await dropDatabase(ch, database);
  // Every message carries the same mix of tool calls, parent spans and warnings: rows scale with tool calls.
  const timedRows = (rows * (n - firstToolCalls)) / n;
  const seconds = (lastMs - firstMs) / 1000;
  if (firstToolCalls === n || seconds <= 0) throw new Error('every row arrived at once: raise --rows to time a rate');
  return {
    rowsPerSec: timedRows / seconds,
    toolCallsPerSec: (n - firstToolCalls) / seconds,
    cpuUsPerRow: (cpu * 1000) / timedRows,
    serverCpuUsPerRow: serverCpuPerRow(s0, s1, timedRows),
    startupMs: firstMs - started,
    withStartupRowsPerSec: rows / ((lastMs - started) / 1000),
  };
}

async function writerRound(ch: ClickHouseClient, messages: number): Promise<ThroughputRound> {
  const database = await freshDb(ch, 'writer');
  const startMs = Date.now();
  const batches = [];
  // Same rows as the topic holds, flattened up front: only encoding + ClickHouse are timed.
  for (let i = 0; i < messages; i += 50_000 / SPANS_PER_MESSAGE) {
    const out = emptyFlattenResult();
    for (let j = i; j < Math.min(messages, i + 50_000 / SPANS_PER_MESSAGE); j++) {
      flattenInto(
        out,
        decodeExportTraceServiceRequest(
          encodeExportTraceServiceRequest(
            syntheticRequest({ tenant: 'bench', toolSpans: SPANS_PER_MESSAGE, seed: j, startMs, warningEvery: 16 }),
          ),
        ),
      );
    }
    batches.push(out);
  }
  const writer = createClickHouseWriter(ch, { database });
  const c0 = cpuMs();
  const s0 = serverCpuMs();
  const t0 = performance.now();
  let rows = 0;
  for (const [k, b] of batches.entries()) {
    await writer.writeRows(b, { dedupToken: `bench:${k}` });
    rows += b.toolCalls.length + b.spans.length + b.warnings.length;
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuMs() - c0;
  const s1 = serverCpuMs();
  await dropDatabase(ch, database);
  const toolCalls = messages * SPANS_PER_MESSAGE;
  return {
    rowsPerSec: rows / seconds,
    toolCallsPerSec: toolCalls / seconds,
    cpuUsPerRow: (cpu * 1000) / rows,
    serverCpuUsPerRow: serverCpuPerRow(s0, s1, rows),
  };
}

async function bytesPerToolCall(ch: ClickHouseClient, topic: string, expected: number): Promise<string> {
  const database = await freshDb(ch, 'disk');
  const ingest = await startIngest(ingestConfig(topic, database, `bench-disk-${stamp()}`), { log: () => {} });
  while ((await rowCount(ch, database, 'tool_calls')) < expected) await sleep(100);
  await ingest.stop();
  const lines: string[] = [];
  for (const table of ['tool_calls', 'spans', 'tool_call_warnings']) {
    await ch.command({ query: benchSql('optimize_table'), query_params: { db: database, table } });
    const rs = await ch.query({
      query: benchSql('table_parts'),
      query_params: { db: database, table },
      format: 'JSONEachRow',
    });
    const r = (await rs.json<{ rows: string; bytes: string; raw: string; parts: string }>())[0]!;
    lines.push(
      `  ${table.padEnd(19)} ${fmt(Number(r.rows)).padStart(9)} rows, ${(Number(r.bytes) / Number(r.rows)).toFixed(1)} bytes/row on disk (${(Number(r.raw) / Number(r.rows)).toFixed(0)} uncompressed), ${r.parts} part(s)`,
    );
  }
  await dropDatabase(ch, database);
  return lines.join('\n');
}

// ---------------------------------------------------------------------------------------------- latency

function forkServe(mode: 'collector' | 'ingest', env: NodeJS.ProcessEnv): ChildProcess {
  return fork(fileURLToPath(import.meta.url), ['--serve', mode], {
    execArgv: ['--import', 'tsx'],
    env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
}

async function latencyRun(ch: ClickHouseClient, rate: number, seconds: number, client: KafkaClientKind) {
  const topic = `otlp_bench_e2e_${stamp()}`;
  const database = await freshDb(ch, 'e2e');
  const env = {
    ...process.env,
    [KAFKA_CLIENT_ENV]: client,
    BENCH_TOPIC: topic,
    TOOLTRAIL_INGEST_TOPIC: topic,
    TOOLTRAIL_INGEST_GROUP_ID: `bench-e2e-${stamp()}`,
    TOOLTRAIL_INGEST_DLQ_TOPIC: `${topic}_dlq`,
    TOOLTRAIL_CLICKHOUSE_DATABASE: database,
  };
  const collector = forkServe('collector', env);
  const [port] = (await once(collector, 'message')) as [number];
  const ingest = forkServe('ingest', env);
  await once(ingest, 'message');

  // Requests of 100 spans (a 12-trace batch as an SDK exporter sends), paced to `rate` spans/s.
  const spansPerRequest = 100;
  const interval = (1000 * spansPerRequest) / rate;
  const agent = new Agent({ keepAlive: true, maxSockets: 16 });
  const sent = new Map<string, number>();
  const warmup = 3;
  const total = Math.round(((seconds + warmup) * rate) / spansPerRequest);
  let non200 = 0;
  const inflight: Promise<void>[] = [];
  const t0 = performance.now();
  const seen = new Map<string, number>();
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const rs = await ch.query({
        query: benchSql('sessions_stored_lately'),
        query_params: { db: database },
        format: 'JSONCompactEachRow',
      });
      const now = performance.now();
      for (const [s] of await rs.json<[string]>()) if (!seen.has(s)) seen.set(s, now);
      await sleep(25);
    }
  })();
  for (let i = 0; i < total; i++) {
    const due = t0 + i * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    const req = syntheticRequest({ tenant: 'e2e', toolSpans: spansPerRequest - 1, seed: 5_000_000 + i });
    // session id = request id: one lookup per request in the poller.
    const body = Buffer.from(encodeExportTraceServiceRequest(req));
    const id = `sess-${5_000_000 + i}`;
    const sentAt = performance.now();
    if (i >= (warmup * rate) / spansPerRequest) sent.set(id, sentAt);
    inflight.push(
      postOtlp(agent, port, body).then((status) => {
        if (status !== 200) non200++;
      }),
    );
  }
  await Promise.all(inflight);
  const deadline = performance.now() + 15_000;
  while ([...sent.keys()].some((k) => !seen.has(k)) && performance.now() < deadline) await sleep(50);
  polling = false;
  await poller;
  agent.destroy();
  const lat = [...sent].filter(([k]) => seen.has(k)).map(([k, t]) => (seen.get(k) as number) - t);
  lat.sort((a, b) => a - b);
  const missing = sent.size - lat.length;
  for (const child of [collector, ingest]) {
    child.send('stop');
    await once(child, 'exit');
  }
  await dropDatabase(ch, database);
  const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-ingest', quiet: true });
  await deleteTopics(kafka, [topic, `${topic}_dlq`]).catch(() => {});
  return { p50: pct(lat, 50) ?? Number.NaN, p99: pct(lat, 99) ?? Number.NaN, samples: lat.length, missing, non200 };
}

// ---------------------------------------------------------------------------------------------- children

async function serve(mode: string): Promise<void> {
  if (mode === 'collector') {
    const config = loadCollectorConfig({
      overrides: {
        http: { host: '127.0.0.1', port: 0 },
        auth: { mode: 'none' },
        kafka: { topic: process.env.BENCH_TOPIC as string, brokers: svc.kafka.brokers },
      },
    });
    const collector = await createCollector(config, { quiet: true, notify: () => {} });
    const address = await collector.start();
    process.send?.(Number(new URL(address).port));
    process.on('message', async () => {
      await collector.close();
      process.exit(0);
    });
    return;
  }
  const ingest = await startIngest(loadIngestConfig({}), { log: (m) => console.error(`[ingest] ${m}`) });
  process.send?.('ready');
  process.on('message', async () => {
    await ingest.stop();
    process.exit(0);
  });
}

// ---------------------------------------------------------------------------------------------- main

/** A client's name in the report: the first client keeps the figures' historical names. */
const suffixOf = (client: KafkaClientKind, first: KafkaClientKind) => (client === first ? '' : ` (${client})`);

const medianCpu = (rs: ThroughputRound[]): ThroughputRound => ({
  rowsPerSec: 0,
  toolCallsPerSec: 0,
  cpuUsPerRow: median(rs.map((r) => r.cpuUsPerRow)),
  serverCpuUsPerRow: rs.some((r) => r.serverCpuUsPerRow === undefined)
    ? undefined
    : median(rs.map((r) => r.serverCpuUsPerRow as number)),
});

async function main(): Promise<void> {
  const rows = Number(args.rows);
  const rounds = Number(args.rounds);
  const clients = clientsOf(args.clients);
  const first = clients[0] as KafkaClientKind;
  const messages = Math.ceil(rows / SPANS_PER_MESSAGE);
  const expected = messages * SPANS_PER_MESSAGE;
  const ch = clickhouse();
  const topic = `otlp_bench_prefilled_${stamp()}`;
  console.log(
    `ingest-throughput: ${fmt(expected)} tool spans in ${fmt(messages)} messages, ${PARTITIONS} partitions, Kafka client(s) ${clients.join(', ')}, ${args.compression} batches` +
      (args.digests ? '; ingest rounds record audit digests' : ''),
  );
  await prefill(topic, messages);
  const ingestRounds = new Map<KafkaClientKind, ThroughputRound[]>(clients.map((c) => [c, []]));
  const writerRounds: ThroughputRound[] = [];
  for (let r = 0; r < rounds; r++) {
    const w = await writerRound(ch, messages);
    writerRounds.push(w);
    console.log(`  round ${r + 1}: writer-only ${fmt(w.rowsPerSec)} rows/s (CPU/row: ${cpuText(w)})`);
    // Alternated, the order turned each round, so neither client always follows the other.
    for (const client of r % 2 === 0 ? clients : [...clients].reverse()) {
      const i = await ingestRound(ch, topic, expected, client);
      ingestRounds.get(client)?.push(i);
      console.log(
        `  round ${r + 1}: ingest (${client}) ${fmt(i.rowsPerSec)} rows/s (${fmt(i.toolCallsPerSec)} tool calls/s, CPU/row: ${cpuText(i)}; ` +
          `start-up ${fmt(i.startupMs ?? 0)} ms, ${fmt(i.withStartupRowsPerSec ?? 0)} rows/s counting it)`,
      );
    }
  }
  const writerMed = median(writerRounds.map((r) => r.rowsPerSec));
  const writerCpu = median(writerRounds.map((r) => r.cpuUsPerRow));
  const figures: BenchFigure[] = [];
  const firstRounds = ingestRounds.get(first) ?? [];
  for (const client of clients) {
    const rs = ingestRounds.get(client) ?? [];
    const ingestMed = median(rs.map((r) => r.rowsPerSec));
    const suffix = suffixOf(client, first);
    console.log(
      `CPU per row (medians): ingest (${client}) ${cpuText(medianCpu(rs))}; writer-only ${cpuText(medianCpu(writerRounds))}`,
    );
    console.log(
      `throughput (median of ${rounds}): ingest (${client}) ${fmt(ingestMed)} rows/s (${fmt(median(rs.map((r) => r.toolCallsPerSec)))} tool calls/s); ` +
        `baseline writer-only ${fmt(writerMed)} rows/s; ratio ingest/writer-only ${(ingestMed / writerMed).toFixed(2)}; target >= 100,000 rows/s: ${ingestMed >= 100_000 ? 'met' : 'NOT met'}`,
    );
    const ingestSpread = spread(rs.map((r) => r.rowsPerSec));
    const ingestCpu = spread(rs.map((r) => r.cpuUsPerRow));
    const firstRows = spread(firstRounds.map((r) => r.rowsPerSec)).value;
    const firstCpu = spread(firstRounds.map((r) => r.cpuUsPerRow)).value;
    if (client !== first) {
      console.log(
        `  ratio ${client}/${first}: rows/s ${(ingestSpread.value / firstRows).toFixed(2)}x, ingest Node CPU per row ${(ingestCpu.value / firstCpu).toFixed(2)}x`,
      );
    }
    figures.push(
      {
        name: `ingest${args.digests ? ' with digests' : ''}${suffix}`,
        ...ingestSpread,
        unit: 'rows/s',
        ...(client === first
          ? { baseline: { name: 'writer-only', value: writerMed }, ratio: ingestSpread.value / writerMed }
          : { baseline: { name: first, value: firstRows }, ratio: ingestSpread.value / firstRows }),
        target: '≥ 100,000 rows/s',
        met: ingestSpread.value >= 100_000,
      },
      {
        name: `ingest${args.digests ? ' with digests' : ''}, start-up included${suffix}`,
        ...spread(rs.map((r) => r.withStartupRowsPerSec ?? 0)),
        unit: 'rows/s',
      },
      {
        name: `ingest Node CPU${suffix}`,
        ...ingestCpu,
        unit: 'µs/row',
        ...(client === first
          ? { baseline: { name: 'writer-only', value: writerCpu }, ratio: ingestCpu.value / writerCpu }
          : { baseline: { name: first, value: firstCpu }, ratio: ingestCpu.value / firstCpu }),
      },
    );
  }
  const load = (await import('node:os')).loadavg()[0]!;
  console.log(
    `machine load average during the run: ${load.toFixed(1)} on ${(await import('node:os')).cpus().length} cores`,
  );
  console.log('bytes on disk after OPTIMIZE FINAL:');
  console.log(await bytesPerToolCall(ch, topic, expected));
  const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-ingest', quiet: true });
  await fetchConsumerLag(kafka, 'none', topic).catch(() => []);
  await deleteTopics(kafka, [topic, `${topic}_dlq`]).catch(() => {});

  if (!args['skip-latency']) {
    const rate = Number(args.rate);
    const runs = new Map<KafkaClientKind, Awaited<ReturnType<typeof latencyRun>>[]>(clients.map((c) => [c, []]));
    // One run per client per round, alternated as the throughput rounds (a single client runs once).
    const latencyRounds = clients.length > 1 ? rounds : 1;
    for (let r = 0; r < latencyRounds; r++) {
      for (const client of r % 2 === 0 ? clients : [...clients].reverse()) {
        const l = await latencyRun(ch, rate, Number(args.seconds), client);
        runs.get(client)?.push(l);
        console.log(
          `end-to-end latency (${client}) at ${fmt(rate)} spans/s for ${args.seconds} s (collector -> Kafka -> ingest -> visible in ClickHouse): ` +
            `p50 ${fmt(l.p50)} ms, p99 ${fmt(l.p99)} ms over ${fmt(l.samples)} requests (${l.missing} never seen, ${l.non200} non-200); target p99 <= 2,000 ms: ${l.p99 <= 2000 && l.missing === 0 ? 'met' : 'NOT met'}`,
        );
      }
    }
    const p99Of = (client: KafkaClientKind) => spread((runs.get(client) ?? []).map((l) => l.p99));
    const firstP99 = p99Of(first).value;
    for (const client of clients) {
      const ls = runs.get(client) ?? [];
      const suffix = suffixOf(client, first);
      const p99 = p99Of(client);
      const missing = ls.reduce((n, l) => n + l.missing, 0);
      if (client !== first)
        console.log(
          `  ratio ${client}/${first}: end-to-end p99 ${(p99.value / firstP99).toFixed(2)}x (medians of ${ls.length})`,
        );
      figures.push(
        { name: `end-to-end p50 at ${fmt(rate)} spans/s${suffix}`, ...spread(ls.map((l) => l.p50)), unit: 'ms' },
        {
          name: `end-to-end p99 at ${fmt(rate)} spans/s${suffix}`,
          ...p99,
          unit: 'ms',
          ...(client === first ? {} : { baseline: { name: first, value: firstP99 }, ratio: p99.value / firstP99 }),
          target: '≤ 2,000 ms, none lost',
          met: p99.value <= 2000 && missing === 0,
        },
      );
    }
  }
  await ch.close();
  printBenchReport({ bench: 'ingest-throughput', figures });
}

if (args.serve) await serve(args.serve);
else await main();
