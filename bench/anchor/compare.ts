/**
 * tooltrail against the OpenTelemetry Collector (Go; built by bench/anchor/build-otelcol.ts with only the OTLP
 * receiver, batch processor, Kafka exporter/receiver and ClickHouse exporter), in the same run, on this machine's
 * Kafka and ClickHouse:
 *
 * 1. OTLP/HTTP -> Kafka: the same load generator posts the same protobuf requests (512 tool spans carrying tooltrail
 *    attributes, 8 per trace) to `tooltrail collector --no-auth` and to the OTel Collector (otlp -> batch -> kafka,
 *    acks=all, gzip level 1 as ours, keyed by trace id). A round is a fixed number of spans: done when tooltrail answered 200 to
 *    all (it answers after Kafka's ack) or when the OTel Collector's otelcol_exporter_sent_spans reached them (it
 *    answers before). spans/s and collector CPU (/proc utime+stime of the child and its descendants).
 * 2. Kafka -> ClickHouse: both read the same topic (what tooltrail's collector wrote in round 1): `tooltrail ingest`
 *    into a migrated database, as shipped (audit digests on) and with `TOOLTRAIL_INGEST_AUDIT_DIGESTS=false` (like
 *    the exporter, which keeps no audit trail), vs the OTel Collector's kafka receiver -> batch -> clickhouse
 *    exporter (HTTP, its own schema). Timed from the consumer group turning STABLE (process start-up and the
 *    group join excluded, every fetch and decode included) to the last row visible.
 * 3. Bytes on disk per span after OPTIMIZE FINAL: tool_calls vs otel_traces, the same spans.
 *
 *   flock /tmp/bench.lock node --import tsx bench/anchor/compare.ts [--spans 200000] [--rounds 3] [--concurrency 8]
 *
 * Prints medians over the rounds, then the BENCH_JSON line (baseline = the OTel Collector's figure).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_KAFKA_COMPRESSION } from '../../collector/config.ts';
import { Attr, EXECUTE_TOOL, GenAi, toolSpanName } from '../../contract/index.ts';
import { type ClickHouseClient, clickHouseOf } from '../../platform/clickhouse.ts';
import {
  compressionLevel,
  createKafkaClient,
  deleteTopics,
  ensureTopics,
  type KafkaClient,
  kafkaClientKindOf,
} from '../../platform/kafka/index.ts';
import { encodeExportTraceServiceRequest, type KeyValue, type Span } from '../../platform/otlp/index.ts';
import { DEFAULT_RETENTION_DAYS } from '../../schema/config.ts';
import { dropDatabase, migrateUp } from '../../schema/migrations.ts';
import { loadServicesConfig } from '../../services/config.ts';
import { freePort } from '../../services/process.ts';
import { sleep } from '../../testkit/wait.ts';
import { untilGroupStable } from '../support/group-stable.ts';
import { postOtlp } from '../support/post-otlp.ts';
import { type BenchFigure, printBenchReport, spread } from '../support/report.ts';
import { localClickHouseCpu, processCpuMs } from '../support/server-cpu.ts';
import { benchSql, countOf, rowCount, settleMerges } from '../support/sql.ts';
import { CACHE_DIR, ensureOtelcol, REPO_ROOT } from './build-otelcol.ts';
import { otelClickHouseConfig, otelKafkaConfig, promCounter } from './otelcol-config.ts';

const SPANS_PER_REQUEST = 512;
const SPANS_PER_TRACE = 8;
const PARTITIONS = 3;
/** The codec and level tooltrail's collector writes with (its default client's), which the anchor is set to. */
const ANCHOR_COMPRESSION = {
  codec: DEFAULT_KAFKA_COMPRESSION,
  level: compressionLevel(kafkaClientKindOf(process.env), DEFAULT_KAFKA_COMPRESSION),
};

const { values: args } = parseArgs({
  options: {
    spans: { type: 'string', default: '200000' },
    rounds: { type: 'string', default: '3' },
    concurrency: { type: 'string', default: '8' },
    warmup: { type: 'string', default: '20000' },
    /** Only part 1 (OTLP/HTTP -> Kafka): the collector's figures, for profiling a change to it. */
    'kafka-only': { type: 'boolean', default: false },
    // `ingest`: part 1 runs once, tooltrail's collector only (it fills the topic part 2 reads); parts 2 and 3 as usual.
    only: { type: 'string' },
  },
});
if (args.only !== undefined && args.only !== 'ingest') throw new Error(`--only must be "ingest", not "${args.only}"`);
const INGEST_ONLY = args.only === 'ingest';

const svc = loadServicesConfig();
const RUN = `${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
/** What the run created, dropped at the end whatever happens. */
const createdTopics: string[] = [];
const createdDatabases: string[] = [];
const createdFiles: string[] = [];

// ---------------------------------------------------------------------------------------------- load

function kv(key: string, value: KeyValue['value']): KeyValue {
  return { key, value };
}

const TOOLS = ['list_service_accounts', 'get_user', 'search_tickets', 'update_ticket', 'delete_branch', 'run_query'];
const AGENTS = ['ops-agent', 'support-agent', 'data-agent'];

/**
 * One request of tool spans as an agent runtime's SDK sends them: every span distinct (ids, call ids, times,
 * durations, counts), values varying as real ones do, so the bytes-on-disk comparison does not reward repeats.
 */
function makeBody(seed: number): Buffer {
  const spans: Span[] = [];
  const base = BigInt(Date.now() - 3_600_000) * 1_000_000n + BigInt(seed) * 2_000_000_000n;
  const agent = AGENTS[seed % AGENTS.length] as string;
  for (let t = 0; t < SPANS_PER_REQUEST / SPANS_PER_TRACE; t++) {
    const traceId = randomBytes(16);
    let start = base + BigInt(t) * 15_000_000n;
    for (let s = 0; s < SPANS_PER_TRACE; s++) {
      const tool = TOOLS[(seed + t + s) % TOOLS.length] as string;
      const mutation = tool.startsWith('update') || tool.startsWith('delete');
      const complete = Math.random() < 0.8;
      const duration = BigInt(Math.floor(1_000_000 + Math.random() ** 2 * 900_000_000));
      spans.push({
        traceId,
        spanId: randomBytes(8),
        parentSpanId: randomBytes(8),
        name: toolSpanName(tool),
        kind: 1,
        startTimeUnixNano: start.toString(),
        endTimeUnixNano: (start + duration).toString(),
        attributes: [
          kv(GenAi.OPERATION_NAME, { stringValue: EXECUTE_TOOL }),
          kv(GenAi.TOOL_NAME, { stringValue: tool }),
          kv(GenAi.TOOL_CALL_ID, { stringValue: `call_${randomBytes(12).toString('base64url')}` }),
          kv(GenAi.CONVERSATION_ID, { stringValue: `session-${seed}-${t}` }),
          kv(GenAi.AGENT_NAME, { stringValue: agent }),
          kv(Attr.EFFECT, { stringValue: mutation ? 'mutation' : 'read' }),
          kv(Attr.RESULT_STATUS, { stringValue: complete ? 'complete' : 'partial' }),
          kv(Attr.RESULT_COMPLETE, { boolValue: complete }),
          ...(complete
            ? []
            : [
                kv(Attr.RESULT_REASONS, { arrayValue: { values: [{ stringValue: 'MORE_PAGES_AVAILABLE' }] } }),
                kv(Attr.RESULT_CONTINUATION, { stringValue: 'next_cursor' }),
              ]),
          kv(Attr.RESULT_ITEM_COUNT, { intValue: Math.floor(Math.random() * 200) }),
          kv(Attr.SCOPE_RESOURCE, { stringValue: tool.split('_').slice(1).join('_') }),
          kv(Attr.SESSION_SEQUENCE, { intValue: s + 1 }),
        ],
        status: { code: 0 },
      });
      start += duration + BigInt(Math.floor(Math.random() * 50_000_000));
    }
  }
  return Buffer.from(
    encodeExportTraceServiceRequest({
      resourceSpans: [
        {
          resource: { attributes: [kv('service.name', { stringValue: agent })] },
          scopeSpans: [{ scope: { name: 'tooltrail', version: '0.1.0' }, spans }],
        },
      ],
    }),
  );
}

/** Posts bodies[first .. first+requests) with `concurrency` clients; a non-200 is retried after 100 ms (counted). */
async function send(
  port: number,
  bodies: Buffer[],
  first: number,
  requests: number,
  concurrency: number,
): Promise<number> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  let next = first;
  const end = first + requests;
  let retries = 0;
  const worker = async () => {
    while (next < end) {
      const body = bodies[next++ % bodies.length] as Buffer;
      while ((await postOtlp(agent, port, body)) !== 200) {
        retries++;
        await sleep(100);
      }
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  agent.destroy();
  return retries;
}

// ---------------------------------------------------------------------------------------------- processes

/** CPU ms of a process and all its descendants (`tooltrail collector` re-executes itself as a child). */
function treeCpuMs(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(name));
      children.set(ppid, list);
    } catch {
      // exited meanwhile
    }
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop() as number;
    total += processCpuMs(pid) ?? 0;
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}

/** CPU ms of the ClickHouse server `tooltrail services up` started (undefined when it is not local). */
const clickhouseCpuMs = localClickHouseCpu(svc.home) ?? (() => undefined);

async function httpGet(port: number, path: string): Promise<{ status: number; body: string } | undefined> {
  return new Promise((resolve) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET' }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.once('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', () => resolve(undefined));
    req.end();
  });
}

interface Child {
  proc: ChildProcess;
  pid: number;
  stop(): Promise<void>;
}

/** `ANCHOR_CPU_PROF=dir`: the ingest sides write V8 CPU profiles under dir/<side>/ (one per round and thread), to guide the next change. */
function profileFlags(side: StoreSide): string[] {
  const dir = process.env.ANCHOR_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${join(dir, side)}`] : [];
}

function start(cmd: string, argv: string[], env: NodeJS.ProcessEnv, label: string): Child {
  const proc = spawn(cmd, argv, { cwd: REPO_ROOT, env, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const keep = process.env.ANCHOR_LOG_DIR;
  const kept = keep ? join(keep, `${label.replaceAll(' ', '-')}-${proc.pid}.log`) : undefined;
  if (keep) mkdirSync(keep, { recursive: true });
  proc.stderr?.on('data', (c: Buffer) => {
    stderr = (stderr + c.toString()).slice(-4000);
    if (kept) appendFileSync(kept, c);
  });
  proc.once('exit', (code, signal) => {
    if (code !== 0 && signal !== 'SIGTERM' && code !== null) console.error(`[${label}] exited ${code}: ${stderr}`);
  });
  return {
    proc,
    pid: proc.pid as number,
    stop: () =>
      new Promise<void>((resolve) => {
        if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
        const kill = setTimeout(() => proc.kill('SIGKILL'), 15_000);
        proc.once('exit', () => {
          clearTimeout(kill);
          resolve();
        });
        proc.kill('SIGTERM');
      }),
  };
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs: number, everyMs = 50): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------------------------------------- 1. into Kafka

interface KafkaRound {
  spansPerSec: number;
  cpuSecPer100k: number;
  spansPerCpuSec: number;
  retries: number;
}

type Side = 'tooltrail' | 'otelcol';
/** Into ClickHouse, tooltrail's ingest runs twice: as shipped, and with its audit digests off. */
type StoreSide = Side | 'tooltrail-no-digests';

async function intoKafka(side: Side, topic: string, bodies: Buffer[], spans: number): Promise<KafkaRound> {
  const concurrency = Number(args.concurrency);
  const port = await freePort();
  const warmRequests = Math.ceil(Number(args.warmup) / SPANS_PER_REQUEST);
  const requests = Math.ceil(spans / SPANS_PER_REQUEST);
  let child: Child;
  let delivered: () => Promise<number>;
  if (side === 'tooltrail') {
    child = start(
      process.execPath,
      ['bin/tooltrail.js', 'collector', '--no-auth', '--port', String(port), '--topic', topic],
      process.env,
      'tooltrail collector',
    );
    await until('tooltrail collector', async () => (await httpGet(port, '/readyz'))?.status === 200, 60_000);
    delivered = async () =>
      promCounter((await httpGet(port, '/metrics'))?.body ?? '', 'tooltrail_collector_spans_accepted');
  } else {
    const metricsPort = await freePort();
    const config = join(CACHE_DIR, `anchor-kafka-${RUN}.yaml`);
    createdFiles.push(config);
    writeFileSync(
      config,
      otelKafkaConfig({
        otlpPort: port,
        metricsPort,
        brokers: svc.kafka.brokers,
        topic,
        compression: ANCHOR_COMPRESSION,
      }),
    );
    child = start(ensureOtelcol(), ['--config', config], process.env, 'otelcol');
    await until('otelcol', async () => (await httpGet(port, '/v1/traces')) !== undefined, 60_000);
    delivered = async () =>
      promCounter((await httpGet(metricsPort, '/metrics'))?.body ?? '', 'otelcol_exporter_sent_spans');
  }
  try {
    const sent = (n: number) => n * SPANS_PER_REQUEST;
    await send(port, bodies, 0, warmRequests, concurrency);
    await until(`${side} warm-up delivered`, async () => (await delivered()) >= sent(warmRequests), 60_000, 20);
    const c0 = treeCpuMs(child.pid);
    const t0 = performance.now();
    const retries = await send(port, bodies, warmRequests, requests, concurrency);
    const target = sent(warmRequests + requests);
    await until(`${side} delivered`, async () => (await delivered()) >= target, 120_000, 20);
    const seconds = (performance.now() - t0) / 1000;
    const cpuSec = (treeCpuMs(child.pid) - c0) / 1000;
    const n = sent(requests);
    return { spansPerSec: n / seconds, cpuSecPer100k: (cpuSec / n) * 100_000, spansPerCpuSec: n / cpuSec, retries };
  } finally {
    await child.stop();
  }
}

// ---------------------------------------------------------------------------------------------- 2. into ClickHouse

interface StoreRound {
  rowsPerSec: number;
  spansPerCpuSec: number;
  cpuSecPer100k: number;
  /** ClickHouse server CPU per 100k rows over the same window (every client's queries count). */
  serverCpuSecPer100k: number | undefined;
  /** The same from the window's start until the merges of this side's parts settled (what the rows cost in all). */
  settledServerCpuSecPer100k: number | undefined;
  database: string;
}

async function intoClickHouse(
  ch: ClickHouseClient,
  kafka: KafkaClient,
  side: StoreSide,
  topic: string,
  expected: number,
  round: number,
): Promise<StoreRound> {
  const database = `anchor_${{ tooltrail: 'tt', 'tooltrail-no-digests': 'ttnd', otelcol: 'otel' }[side]}_${RUN}_${round}`;
  const group = `anchor-${side}-${RUN}-${round}`;
  let child: Child;
  let table: string;
  createdDatabases.push(database);
  // Each side starts on a quiet machine: the broker's writeback of the topic fill and the previous side's merges
  // would otherwise run inside this side's window, on its consumer's cores and on its ClickHouse CPU reading.
  await untilQuiet(ch);
  if (side !== 'otelcol') {
    createdTopics.push(`${topic}_dlq_${round}`);
    await migrateUp(ch, { database, retentionDays: DEFAULT_RETENTION_DAYS });
    table = `${database}.tool_calls`;
    child = start(
      process.execPath,
      [
        ...profileFlags(side),
        'bin/tooltrail.js',
        'ingest',
        '--topic',
        topic,
        '--group',
        group,
        '--dlq-topic',
        `${topic}_dlq_${round}`,
      ],
      {
        ...process.env,
        TOOLTRAIL_CLICKHOUSE_DATABASE: database,
        TOOLTRAIL_INGEST_AUDIT_DIGESTS: side === 'tooltrail' ? 'true' : 'false',
      },
      'tooltrail ingest',
    );
  } else {
    table = `${database}.otel_traces`;
    const config = join(CACHE_DIR, `anchor-clickhouse-${RUN}-${round}.yaml`);
    createdFiles.push(config);
    writeFileSync(
      config,
      otelClickHouseConfig({
        metricsPort: await freePort(),
        brokers: svc.kafka.brokers,
        topic,
        groupId: group,
        endpoint: svc.clickhouse.url,
        database,
        user: svc.clickhouse.user,
        password: svc.clickhouse.password.reveal(),
      }),
    );
    child = start(ensureOtelcol(), ['--config', config], process.env, 'otelcol');
  }
  // The exporter creates its table once it started: ask system.tables first (a failed query logs an error).
  const [db, name] = table.split('.') as [string, string];
  let exists = false;
  const rows = async () => {
    exists ||= (await countOf(ch, 'table_exists', { db, table: name })) > 0;
    if (!exists) return 0;
    // The exporter is at-least-once: a batch retried under load is stored twice, so count its distinct spans.
    return side === 'otelcol' ? countOf(ch, 'distinct_spans', { db, table: name }) : rowCount(ch, db, name);
  };
  try {
    // From the moment the group is STABLE (the consumer has its partitions, nothing fetched yet): start-up (Node,
    // the Go runtime, schema creation, the group join) is not throughput; every fetch, decode and insert is.
    await untilGroupStable(kafka, group);
    const first = await rows();
    const c0 = treeCpuMs(child.pid);
    const s0 = clickhouseCpuMs();
    const t0 = performance.now();
    let n = first;
    await until(
      `${side} all ${expected} rows`,
      async () => {
        n = await rows();
        return n >= expected;
      },
      300_000,
      20,
    );
    const seconds = (performance.now() - t0) / 1000;
    const cpuSec = (treeCpuMs(child.pid) - c0) / 1000;
    const s1 = clickhouseCpuMs();
    if (n !== expected) throw new Error(`${side}: ${n} rows in ${table}, expected ${expected}`);
    const measured = expected - first;
    await child.stop();
    // Parts inserted near the end merge after the window: counted here, on the side that wrote them.
    await settleMerges(ch, database, 120_000);
    const s2 = clickhouseCpuMs();
    const per100k = (to: number | undefined) =>
      s0 === undefined || to === undefined ? undefined : ((to - s0) / 1000 / measured) * 100_000;
    return {
      rowsPerSec: measured / seconds,
      spansPerCpuSec: measured / cpuSec,
      cpuSecPer100k: (cpuSec / measured) * 100_000,
      serverCpuSecPer100k: per100k(s1),
      settledServerCpuSecPer100k: per100k(s2),
      database,
    };
  } finally {
    await child.stop();
  }
}

/** Dirty pages written (`sync`) and no merge running on the server; says how long that took when over 1.5 s. */
async function untilQuiet(ch: ClickHouseClient): Promise<void> {
  const t0 = performance.now();
  execFileSync('sync');
  await settleMerges(ch, '', 120_000);
  const seconds = (performance.now() - t0) / 1000;
  if (seconds > 1.5) console.log(`  (waited ${seconds.toFixed(1)} s for writeback and merges to settle)`);
}

async function bytesPerRow(ch: ClickHouseClient, database: string, table: string) {
  await ch.command({ query: benchSql('optimize_table'), query_params: { db: database, table } });
  const rs = await ch.query({
    query: benchSql('table_parts'),
    query_params: { db: database, table },
    format: 'JSONEachRow',
  });
  const r = (await rs.json<{ rows: string; bytes: string; raw: string }>())[0];
  const n = Number(r?.rows ?? 0);
  // Where the bytes go: the heaviest columns, compressed bytes per row.
  const cs = await ch.query({
    query: benchSql('heaviest_columns'),
    query_params: { db: database, table },
    format: 'JSONEachRow',
  });
  const top = (await cs.json<{ name: string; b: string }>()).map((c) => `${c.name} ${(Number(c.b) / n).toFixed(1)}`);
  return { rows: n, onDisk: Number(r?.bytes ?? 0) / n, uncompressed: Number(r?.raw ?? 0) / n, top };
}

// ---------------------------------------------------------------------------------------------- main

function line(label: string, ours: number[], theirs: number[], unit: string, digits = 0): string {
  const f = (xs: number[]) => {
    const s = spread(xs);
    const d = (x: number) => (digits ? x.toFixed(digits) : fmt(x));
    return `${d(s.value)} (${d(s.min)}-${d(s.max)})`;
  };
  return `  ${label.padEnd(34)} tooltrail ${f(ours)}  otelcol ${f(theirs)} ${unit}`;
}

function figure(
  name: string,
  unit: string,
  ours: number[],
  theirs: number[],
  target?: { text: string; met: (ratio: number) => boolean },
): BenchFigure {
  const s = spread(ours);
  const b = spread(theirs).value;
  const ratio = Math.round((s.value / b) * 1000) / 1000;
  return {
    name,
    unit,
    ...s,
    baseline: { name: 'OpenTelemetry Collector v0.165 (same run)', value: b },
    ratio,
    ...(target ? { target: target.text, met: target.met(ratio) } : {}),
  };
}

/** Part 1's medians, tooltrail beside the OTel Collector, and the two ratios issue 36 sets targets on. */
function kafkaLines(k: Record<Side, KafkaRound[]>): string[] {
  const pick = (s: Side, f: (x: KafkaRound) => number) => k[s].map(f);
  const ratio = (f: (x: KafkaRound) => number) => spread(pick('tooltrail', f)).value / spread(pick('otelcol', f)).value;
  return [
    line(
      'into Kafka, spans/s',
      pick('tooltrail', (x) => x.spansPerSec),
      pick('otelcol', (x) => x.spansPerSec),
      '',
    ),
    line(
      'into Kafka, CPU s/100k spans',
      pick('tooltrail', (x) => x.cpuSecPer100k),
      pick('otelcol', (x) => x.cpuSecPer100k),
      '',
      2,
    ),
    line(
      'into Kafka, spans/CPU-s',
      pick('tooltrail', (x) => x.spansPerCpuSec),
      pick('otelcol', (x) => x.spansPerCpuSec),
      '',
    ),
    `  into Kafka, tooltrail / OTel Collector: ${ratio((x) => x.spansPerCpuSec).toFixed(2)}x spans per CPU-s (target >= 1.5x), ` +
      `${ratio((x) => x.spansPerSec).toFixed(2)}x spans/s (target >= 1.0x; tooltrail answers after acks=all)`,
  ];
}

function kafkaFigures(k: Record<Side, KafkaRound[]>): BenchFigure[] {
  const pick = (s: Side, f: (x: KafkaRound) => number) => k[s].map(f);
  return [
    figure(
      'OTLP/HTTP -> Kafka, spans per collector CPU second',
      'spans/CPU-s',
      pick('tooltrail', (x) => x.spansPerCpuSec),
      pick('otelcol', (x) => x.spansPerCpuSec),
      { text: '>= 1.5x the OTel Collector', met: (r) => r >= 1.5 },
    ),
    figure(
      'OTLP/HTTP -> Kafka, spans/s',
      'spans/s',
      pick('tooltrail', (x) => x.spansPerSec),
      pick('otelcol', (x) => x.spansPerSec),
      {
        text: '>= 1.0x the OTel Collector',
        met: (r) => r >= 1,
      },
    ),
    figure(
      'OTLP/HTTP -> Kafka, collector CPU per 100k spans',
      'CPU s',
      pick('tooltrail', (x) => x.cpuSecPer100k),
      pick('otelcol', (x) => x.cpuSecPer100k),
    ),
  ];
}

async function main(): Promise<void> {
  const spans = Number(args.spans);
  const rounds = Number(args.rounds);
  const binary = ensureOtelcol();
  const ch = clickHouseOf(svc.clickhouse, { requestTimeoutMs: 120_000 });
  const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-anchor', quiet: true });
  const requests = Math.ceil(spans / SPANS_PER_REQUEST);
  // Every request of a round distinct; each side and round sends the same ones.
  const bodies = Array.from({ length: Math.ceil(Number(args.warmup) / SPANS_PER_REQUEST) + requests }, (_, i) =>
    makeBody(i),
  );
  console.log(
    `anchor: tooltrail vs ${binary.replace(`${REPO_ROOT}/`, '')}; ${fmt(requests * SPANS_PER_REQUEST)} spans per round ` +
      `(${SPANS_PER_REQUEST}/request, ${SPANS_PER_TRACE}/trace, ~${Math.round((bodies[0] as Buffer).length / 1024)} KiB protobuf), ` +
      `${args.concurrency} clients, ${rounds} rounds, load average ${loadavg()
        .map((x) => x.toFixed(2))
        .join(' ')}`,
  );
  const k: Record<Side, KafkaRound[]> = { tooltrail: [], otelcol: [] };
  const c: Record<StoreSide, StoreRound[]> = { tooltrail: [], 'tooltrail-no-digests': [], otelcol: [] };
  let source = '';
  let sourceSpans = 0;
  try {
    console.log(`1. OTLP/HTTP -> Kafka${INGEST_ONLY ? ' (--only ingest: tooltrail once, to fill the topic)' : ''}`);
    for (let r = 0; r < (INGEST_ONLY ? 1 : rounds); r++) {
      // Alternate who goes first: the machine's other load drifts.
      const order: Side[] = INGEST_ONLY
        ? ['tooltrail']
        : r % 2 === 0
          ? ['tooltrail', 'otelcol']
          : ['otelcol', 'tooltrail'];
      for (const side of order) {
        const topic = `anchor_${side}_${RUN}_${r}`;
        createdTopics.push(topic);
        await ensureTopics(kafka, [{ topic, numPartitions: PARTITIONS }]);
        // As in part 2: the previous side's writes are flushed before this one's window (its writeback is not ours).
        await untilQuiet(ch);
        const x = await intoKafka(side, topic, bodies, spans);
        k[side].push(x);
        if (side === 'tooltrail' && !source) {
          source = topic;
          sourceSpans = (Math.ceil(Number(args.warmup) / SPANS_PER_REQUEST) + requests) * SPANS_PER_REQUEST;
        }
        console.log(
          `  round ${r + 1} ${side.padEnd(9)} ${fmt(x.spansPerSec).padStart(8)} spans/s  CPU ${x.cpuSecPer100k.toFixed(2)} s/100k spans  ` +
            `${fmt(x.spansPerCpuSec)} spans/CPU-s${x.retries ? `  (${x.retries} retried requests)` : ''}  load ${loadavg()[0]?.toFixed(2)}`,
        );
      }
    }
    if (args['kafka-only']) {
      console.log(`medians (min-max) of ${rounds} rounds:`);
      for (const l of kafkaLines(k)) console.log(l);
      printBenchReport({ bench: 'anchor-compare', figures: kafkaFigures(k) });
      return;
    }
    console.log(`2. Kafka -> ClickHouse (${fmt(sourceSpans)} spans tooltrail's collector wrote to ${source})`);
    const sides: StoreSide[] = ['tooltrail', 'tooltrail-no-digests', 'otelcol'];
    for (let r = 0; r < rounds; r++) {
      // Rotate who goes first: the machine's other load drifts.
      const order = sides.map((_, i) => sides[(i + r) % sides.length]!);
      for (const side of order) {
        const x = await intoClickHouse(ch, kafka, side, source, sourceSpans, r);
        c[side].push(x);
        console.log(
          `  round ${r + 1} ${side.padEnd(20)} ${fmt(x.rowsPerSec).padStart(8)} rows/s  CPU ${x.cpuSecPer100k.toFixed(2)} s/100k rows ` +
            `(+ ClickHouse ${x.serverCpuSecPer100k?.toFixed(2) ?? 'n/a'} s, ${x.settledServerCpuSecPer100k?.toFixed(2) ?? 'n/a'} s till merged)  ` +
            `${fmt(x.spansPerCpuSec)} spans/CPU-s  load ${loadavg()[0]?.toFixed(2)}`,
        );
      }
    }
    const ttDisk = await bytesPerRow(ch, c.tooltrail.at(-1)?.database ?? '', 'tool_calls');
    const otDisk = await bytesPerRow(ch, c.otelcol.at(-1)?.database ?? '', 'otel_traces');
    console.log('3. bytes on disk per span after OPTIMIZE FINAL (same spans)');
    console.log(
      `  tooltrail tool_calls ${ttDisk.onDisk.toFixed(1)} B/span (${ttDisk.uncompressed.toFixed(0)} uncompressed, ${fmt(ttDisk.rows)} rows); ` +
        `otelcol otel_traces ${otDisk.onDisk.toFixed(1)} B/span (${otDisk.uncompressed.toFixed(0)} uncompressed, ${fmt(otDisk.rows)} rows); ` +
        `ratio ${(ttDisk.onDisk / otDisk.onDisk).toFixed(2)}`,
    );
    console.log(`  heaviest columns, B/span: tool_calls ${ttDisk.top.join(', ')}`);
    console.log(`  heaviest columns, B/span: otel_traces ${otDisk.top.join(', ')}`);

    const pickC = (s: StoreSide, f: (x: StoreRound) => number) => c[s].map(f);
    console.log(`medians (min-max) of ${rounds} rounds:`);
    const kafkaCompared = k.otelcol.length > 0;
    if (kafkaCompared) for (const l of kafkaLines(k)) console.log(l);
    console.log(
      line(
        'into ClickHouse, rows/s',
        pickC('tooltrail', (x) => x.rowsPerSec),
        pickC('otelcol', (x) => x.rowsPerSec),
        '',
      ),
    );
    console.log(
      line(
        'into ClickHouse, CPU s/100k rows',
        pickC('tooltrail', (x) => x.cpuSecPer100k),
        pickC('otelcol', (x) => x.cpuSecPer100k),
        '',
        2,
      ),
    );
    console.log(
      line(
        'into ClickHouse, spans/CPU-s',
        pickC('tooltrail', (x) => x.spansPerCpuSec),
        pickC('otelcol', (x) => x.spansPerCpuSec),
        '',
      ),
    );
    console.log(
      line(
        'same, tooltrail digests off',
        pickC('tooltrail-no-digests', (x) => x.spansPerCpuSec),
        pickC('otelcol', (x) => x.spansPerCpuSec),
        '',
      ),
    );
    const atLeast = (r: number) => r >= 1;
    const figures: BenchFigure[] = [
      ...(kafkaCompared ? kafkaFigures(k) : []),
      // Targets of issue 38: the audit trail on (as shipped).
      figure(
        'Kafka -> ClickHouse, spans per consumer CPU second',
        'spans/CPU-s',
        pickC('tooltrail', (x) => x.spansPerCpuSec),
        pickC('otelcol', (x) => x.spansPerCpuSec),
        { text: '>= 2.0x the OTel Collector', met: (r) => r >= 2 },
      ),
      figure(
        'Kafka -> ClickHouse, rows/s',
        'rows/s',
        pickC('tooltrail', (x) => x.rowsPerSec),
        pickC('otelcol', (x) => x.rowsPerSec),
        { text: '>= 1.0x the OTel Collector', met: atLeast },
      ),
      {
        ...figure(
          'Kafka -> ClickHouse, rows/s, audit on vs off',
          'rows/s',
          pickC('tooltrail', (x) => x.rowsPerSec),
          pickC('tooltrail-no-digests', (x) => x.rowsPerSec),
          { text: '>= 0.85x audit off', met: (r) => r >= 0.85 },
        ),
        baseline: {
          name: 'tooltrail ingest, audit off (same run)',
          value: spread(pickC('tooltrail-no-digests', (x) => x.rowsPerSec)).value,
        },
      },
      // Like for like: the exporter records no tamper evidence either.
      figure(
        'Kafka -> ClickHouse, spans per consumer CPU second, audit digests off',
        'spans/CPU-s',
        pickC('tooltrail-no-digests', (x) => x.spansPerCpuSec),
        pickC('otelcol', (x) => x.spansPerCpuSec),
        { text: '>= 1.0x the OTel Collector', met: atLeast },
      ),
      figure(
        'Kafka -> ClickHouse, rows/s, audit digests off',
        'rows/s',
        pickC('tooltrail-no-digests', (x) => x.rowsPerSec),
        pickC('otelcol', (x) => x.rowsPerSec),
      ),
      figure('bytes on disk per span (tool_calls vs otel_traces)', 'bytes', [ttDisk.onDisk], [otDisk.onDisk], {
        text: '<= 0.7x the exporter',
        met: (r) => r <= 0.7,
      }),
    ];
    // ClickHouse's CPU and, what a deployment pays for, the consumer and the database it writes to together: over
    // the window, then till each side's merges settled (mostly after its last row: no target, the full cost).
    const serverFigures = (
      read: (x: StoreRound) => number | undefined,
      labels: [server: string, both: string, serverFigure: string, bothFigure: string],
      target?: { text: string; met: (ratio: number) => boolean },
    ) => {
      // Every round has both readings, or its server reading is left out of both figures.
      const rounds = (s: StoreSide) => c[s].flatMap((x) => (read(x) === undefined ? [] : [x]));
      const server = (s: StoreSide) => rounds(s).map((x) => read(x)!);
      const both = (s: StoreSide) => rounds(s).map((x) => 1e5 / (x.cpuSecPer100k + read(x)!));
      if (server('tooltrail').length === 0 || server('otelcol').length === 0) return;
      console.log(line(labels[0], server('tooltrail'), server('otelcol'), '', 2));
      console.log(line(labels[1], both('tooltrail'), both('otelcol'), ''));
      figures.push(
        figure(labels[2], 'CPU s', server('tooltrail'), server('otelcol')),
        figure(labels[3], 'spans/CPU-s', both('tooltrail'), both('otelcol'), target),
      );
    };
    serverFigures(
      (x) => x.serverCpuSecPer100k,
      [
        'ClickHouse server CPU s/100k rows',
        'spans/CPU-s, consumer + ClickHouse',
        'Kafka -> ClickHouse, ClickHouse server CPU per 100k rows',
        'Kafka -> ClickHouse, spans per CPU second of consumer and ClickHouse server together',
      ],
      { text: '>= 1.0x the OTel Collector', met: atLeast },
    );
    serverFigures(
      (x) => x.settledServerCpuSecPer100k,
      [
        'ClickHouse CPU s/100k, till merged',
        'consumer + ClickHouse till merged',
        'Kafka -> ClickHouse, ClickHouse server CPU per 100k rows, till the merges settled',
        'Kafka -> ClickHouse, spans per CPU second of consumer and ClickHouse server, merges included',
      ],
    );
    printBenchReport({ bench: 'anchor-compare', figures });
  } finally {
    for (const db of createdDatabases) await dropDatabase(ch, db).catch(() => {});
    // One by one: a topic the broker does not know must not keep the others.
    for (const t of new Set(createdTopics)) await deleteTopics(kafka, [t]).catch(() => {});
    for (const f of createdFiles) rmSync(f, { force: true });
    await ch.close();
  }
}

await main();
