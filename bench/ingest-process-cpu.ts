/**
 * The `tooltrail ingest` process as a whole, in the cluster soak's shape: CPU microseconds per span stored from a
 * pre-filled topic (messages of one trace of `--spans-per-message` tool spans, as the soak's requests of 200 are
 * written by the collector, with its message-id header), the command as the soak runs it (audit digests and the
 * Merkle log on by default, its logging and metrics), before (a git worktree of `--before`) and after (this
 * checkout), alternated round after round, the order turned each round, on the real Kafka and ClickHouse.
 *
 * Per run: a fresh database and consumer group; the process CPU (utime + stime from /proc) is read when the group
 * turns STABLE and when the last rows are visible, so start-up (loading modules, the group join) is left out and
 * every fetch and decode counts; µs per span = CPU between the two / spans stored between them. Medians over the
 * rounds, after/before.
 * `--cpu-prof DIR` writes a CPU profile of each "after" process there (node --cpu-prof).
 *
 *   node --import tsx bench/ingest-process-cpu.ts [--before main] [--rows 200000] [--spans-per-message 200]
 *       [--rounds 3] [--cpu-prof DIR]
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type ClickHouseClient, createClickHouse } from '../platform/clickhouse.ts';
import {
  createIdempotentProducer,
  createKafkaClient,
  deleteTopics,
  ensureTopics,
  MESSAGE_ID_HEADER,
  messageIdBytes,
} from '../platform/kafka/index.ts';
import { DEFAULT_RETENTION_DAYS } from '../schema/config.ts';
import { dropDatabase, migrateUp } from '../schema/migrations.ts';
import { loadServicesConfig } from '../services/config.ts';
import { syntheticMessage } from '../testkit/ingest.ts';
import { untilGroupStable } from './support/group-stable.ts';
import { printBenchReport, spread } from './support/report.ts';
import { countOf } from './support/sql.ts';
import { beforeWorktree } from './support/worktree.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const PARTITIONS = 3;

const { values: args } = parseArgs({
  options: {
    before: { type: 'string', default: 'main' },
    'before-node-modules': { type: 'string', default: join(ROOT, 'node_modules') },
    rows: { type: 'string', default: '200000' },
    'spans-per-message': { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    'cpu-prof': { type: 'string' },
  },
});

const svc = loadServicesConfig();
const stamp = () => `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const CLOCK_TICKS_PER_SECOND = 100;

/** utime + stime of a process, in µs (fields 14 and 15 of /proc/PID/stat, in clock ticks). */
function processCpuUs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1e6) / CLOCK_TICKS_PER_SECOND;
}

function count(ch: ClickHouseClient, database: string): Promise<number> {
  return countOf(ch, 'stored_spans', { db: database });
}

async function prefill(topic: string, messages: number, spansPerMessage: number): Promise<void> {
  const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-ingest-cpu', quiet: true });
  await ensureTopics(kafka, [{ topic, numPartitions: PARTITIONS }]);
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  const startMs = Date.now();
  // Sends of ~500 KB: the broker's default limit on a request is 1 MB.
  const perSend = Math.max(1, Math.floor(800 / spansPerMessage));
  for (let i = 0; i < messages; i += perSend) {
    const batch = [];
    for (let j = i; j < Math.min(messages, i + perSend); j++) {
      const value = syntheticMessage({ tenant: 'bench', toolSpans: spansPerMessage, seed: j, startMs });
      batch.push({ key: `trace-${j}`, value, headers: { [MESSAGE_ID_HEADER]: messageIdBytes(value) } });
    }
    await producer.send(topic, batch);
  }
  await producer.disconnect();
}

interface Run {
  cpuUsPerSpan: number;
  spansPerSecond: number;
}

/** One `tooltrail ingest` process of `root` over the whole topic. */
async function ingestRun(
  ch: ClickHouseClient,
  root: string,
  topic: string,
  spans: number,
  cpuProf: string | undefined,
): Promise<Run> {
  const database = `bench_ingest_cpu_${stamp()}`;
  const groupId = `bench-cpu-${stamp()}`;
  const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-ingest-cpu', quiet: true });
  await migrateUp(ch, { database, retentionDays: DEFAULT_RETENTION_DAYS });
  const child: ChildProcess = spawn(
    process.execPath,
    [...(cpuProf ? ['--cpu-prof', '--cpu-prof-dir', cpuProf] : []), join(root, 'bin/tooltrail.js'), 'ingest'],
    {
      cwd: root,
      env: {
        ...process.env,
        TOOLTRAIL_INGEST_TOPIC: topic,
        TOOLTRAIL_INGEST_GROUP_ID: groupId,
        TOOLTRAIL_INGEST_DLQ_TOPIC: `${topic}_dlq`,
        TOOLTRAIL_CLICKHOUSE_DATABASE: database,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const exited = once(child, 'exit');
  try {
    await untilGroupStable(kafka, groupId, { alive: () => child.exitCode === null }).catch((err: Error) => {
      throw new Error(`${err.message}: ${stderr}`);
    });
    let n = await count(ch, database);
    const pid = child.pid as number;
    const first = { n, cpu: processCpuUs(pid), at: performance.now() };
    let cpu = first.cpu;
    let at = first.at;
    while (n < spans) {
      if (child.exitCode !== null) throw new Error(`tooltrail ingest exited: ${stderr}`);
      await sleep(50);
      const now = await count(ch, database);
      if (now !== n) {
        cpu = processCpuUs(pid);
        at = performance.now();
        n = now;
      }
    }
    if (n !== spans) throw new Error(`expected ${spans} spans stored, found ${n}`);
    if (first.n === n) throw new Error('every row arrived at once: raise --rows');
    return {
      cpuUsPerSpan: (cpu - first.cpu) / (n - first.n),
      spansPerSecond: ((n - first.n) * 1000) / (at - first.at),
    };
  } finally {
    child.kill('SIGTERM');
    await exited;
    await dropDatabase(ch, database);
  }
}

async function main(): Promise<void> {
  const spansPerMessage = Number(args['spans-per-message']);
  const messages = Math.ceil(Number(args.rows) / spansPerMessage);
  // Each message: the trace's parent span (a `spans` row) and its tool spans (`tool_calls` rows).
  const spans = messages * (spansPerMessage + 1);
  const ch = createClickHouse({
    url: svc.clickhouse.url,
    user: svc.clickhouse.user,
    password: svc.clickhouse.password,
    requestTimeoutMs: 120_000,
  });
  const topic = `otlp_bench_cpu_${stamp()}`;
  const before = beforeWorktree(ROOT, String(args.before), String(args['before-node-modules']));
  const runs = { before: [] as Run[], after: [] as Run[] };
  console.log(
    `ingest-process-cpu: before = ${before.commit}, after = this checkout; ${messages} messages of ${spansPerMessage} tool spans + 1 (${spans} spans), ${PARTITIONS} partitions`,
  );
  try {
    await prefill(topic, messages, spansPerMessage);
    const rounds = Number(args.rounds);
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const)) {
        const run = await ingestRun(
          ch,
          side === 'before' ? before.dir : ROOT,
          topic,
          spans,
          side === 'after' ? args['cpu-prof'] : undefined,
        );
        runs[side].push(run);
        console.log(
          `  round ${r + 1} ${side}: ${run.cpuUsPerSpan.toFixed(1)} us CPU per span, ${Math.round(run.spansPerSecond)} spans/s`,
        );
      }
    }
  } finally {
    before.remove();
    const kafka = createKafkaClient({ brokers: svc.kafka.brokers, clientId: 'bench-ingest-cpu', quiet: true });
    await deleteTopics(kafka, [topic, `${topic}_dlq`]).catch(() => {});
    await ch.close();
  }
  const after = spread(runs.after.map((r) => r.cpuUsPerSpan));
  const base = spread(runs.before.map((r) => r.cpuUsPerSpan));
  const ratio = after.value / base.value;
  const afterRate = spread(runs.after.map((r) => r.spansPerSecond));
  const baseRate = spread(runs.before.map((r) => r.spansPerSecond));
  console.log(
    `CPU per span (medians): after ${after.value.toFixed(1)} us, before ${base.value.toFixed(1)} us, ratio ${ratio.toFixed(2)}; ` +
      `spans/s after ${Math.round(afterRate.value)}, before ${Math.round(baseRate.value)}`,
  );
  printBenchReport({
    bench: 'ingest-process-cpu',
    figures: [
      {
        name: 'tooltrail ingest CPU per span',
        ...after,
        unit: 'µs/span',
        baseline: { name: `before (${before.commit})`, value: base.value },
        ratio,
      },
      {
        name: 'tooltrail ingest spans/s',
        ...afterRate,
        unit: 'spans/s',
        baseline: { name: `before (${before.commit})`, value: baseRate.value },
        ratio: afterRate.value / baseRate.value,
      },
    ],
  });
}

await main();
