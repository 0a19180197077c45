// test-lane: self-contained (a fresh database, its own topics and group, free ports; scripts/test-lanes.js)
/**
 * The third-party exporter case, end to end, through the commands a user runs: spans of the plain OpenTelemetry
 * Python SDK, encoded by its own OTLP protobuf encoder and produced to the topic of `tooltrail up --kafka` by
 * kafka-python (a venv from PyPI), carry no tooltrail.tenant. With collector tokens and no default tenant they are
 * dead-lettered, visible in the ingest's metrics, its log and `tooltrail dlq list`; after `up` restarts with
 * `--default-tenant`, `tooltrail dlq replay` stores them once, and a second replay (and a forced one) stores nothing
 * more, counted in ClickHouse.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { createClickHouse } from '../../platform/clickhouse.ts';
import { createKafkaClient, deleteTopics, fetchConsumerLag } from '../../platform/kafka/index.ts';
import { pythonVenv } from '../../testkit/python-venv.ts';
import { requireClickHouse, requireKafka, services, uniqueName } from '../../testkit/services.ts';
import { until } from '../../testkit/wait.ts';

const run = promisify(execFile);
const root = resolve(import.meta.dirname, '../..');
const HERE = join(import.meta.dirname, 'third-party-kafka');
const REQUIREMENTS = join(HERE, 'requirements.txt');
const TRACES = 3;

const topic = uniqueName('py_spans');
const dlqTopic = `${topic}_dlq`;
const group = uniqueName('py-ingest');
const database = uniqueName('tt_py_kafka');
const ch = createClickHouse({ url: services.clickhouse.url });
const kafka = createKafkaClient({ brokers: services.kafka.brokers, clientId: 'third-party-test', quiet: true });

function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once('error', reject).listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolvePort(port));
    });
  });
}

const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
  ...process.env,
  TOOLTRAIL_COLLECTOR_TOPIC: topic,
  TOOLTRAIL_INGEST_DLQ_TOPIC: dlqTopic,
  TOOLTRAIL_INGEST_GROUP_ID: group,
  TOOLTRAIL_CLICKHOUSE_DATABASE: database,
  // The shared broker and ClickHouse named as the user's own: `up` uses them, never starts or stops them.
  TOOLTRAIL_KAFKA_BROKERS: services.kafka.brokers.join(','),
  TOOLTRAIL_CLICKHOUSE_URL: services.clickhouse.url,
  // Pages stay in a file: nothing listens here.
  TOOLTRAIL_ALERTMANAGER_URL: 'http://127.0.0.1:9',
  NO_COLOR: '1',
  ...extra,
});

interface Up {
  child: ChildProcess;
  lines: string[];
  waitFor(re: RegExp, what: string, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

/** `tooltrail up --kafka ARGS` as a user runs it, until its "is up" line. */
async function up(args: string[], extra: Record<string, string>): Promise<Up> {
  const child = spawn(process.execPath, ['bin/tooltrail.js', 'up', '--kafka', '--evaluate-every', '3600', ...args], {
    cwd: root,
    env: env(extra),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream?.on('data', (d: Buffer) => {
      const parts = (rest + d.toString()).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
    });
  }
  const u: Up = {
    child,
    lines,
    async waitFor(re, what, timeoutMs = 120_000) {
      const hit = await until(
        `tooltrail up says its ${what}`,
        () => lines.find((l) => re.test(l)) ?? child.exitCode !== null,
        {
          timeoutMs,
          everyMs: 100,
          describe: () => `exit ${child.exitCode}:\n${lines.join('\n')}`,
        },
      );
      if (typeof hit !== 'string')
        assert.fail(`tooltrail up: no ${what} (exit ${child.exitCode}):\n${lines.join('\n')}`);
      return hit;
    },
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGINT');
      await exited;
    },
  };
  await u.waitFor(/^tooltrail is up/, '"is up" line');
  return u;
}

async function cli(...args: string[]): Promise<{ out: string; err: string; code: number }> {
  try {
    const r = await run(process.execPath, ['bin/tooltrail.js', ...args], { cwd: root, env: env(), timeout: 120_000 });
    return { out: r.stdout, err: r.stderr, code: 0 };
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; code?: number };
    return { out: e.stdout ?? '', err: e.stderr ?? '', code: typeof e.code === 'number' ? e.code : 1 };
  }
}

interface Letter {
  id: string;
  reason: string;
  state: string;
  spans: number;
}

async function letters(): Promise<Letter[]> {
  const r = await cli('dlq', 'list', '--json');
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { letters: Letter[] }).letters;
}

async function count(sql: string): Promise<number> {
  const rs = await ch.query({ query: sql, query_params: { db: database }, format: 'JSONEachRow' });
  return Number((await rs.json<{ n: string }>())[0]?.n ?? 0);
}

const stored = () => count(`SELECT count() AS n FROM {db:Identifier}.tool_calls WHERE service_name = 'py-kafka-agent'`);

/** Until the ingest's group has committed everything in the topic. */
async function drained(): Promise<void> {
  await until(
    'the ingest caught up',
    async () => {
      const lag = await fetchConsumerLag(kafka, group, topic);
      return lag.length > 0 && lag.every((p) => p.lag === 0);
    },
    { timeoutMs: 60_000, everyMs: 250 },
  );
}

let running: Up | undefined;
let py: string;
before(async () => {
  await Promise.all([requireKafka(), requireClickHouse()]);
  py = await pythonVenv('python-kafka-venv', REQUIREMENTS);
});

after(async () => {
  await running?.stop();
  await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` }).catch(() => {});
  await ch.close();
  await deleteTopics(kafka, [topic, dlqTopic]).catch(() => {});
});

test('a third-party exporter’s spans without a tenant are dead-lettered visibly, and replayed with a default tenant are stored once', async () => {
  const metricsPort = await freePort();
  running = await up(['--port', String(await freePort())], {
    TOOLTRAIL_COLLECTOR_TOKENS: 'py-test-token-0123456789=acme',
    TOOLTRAIL_INGEST_METRICS_PORT: String(metricsPort),
  });
  await running.waitFor(
    new RegExp(`spans in ${topic} without tooltrail.tenant are dead-lettered to ${dlqTopic} \\(missing_tenant\\)`),
    'line saying tenant-less spans are dead-lettered',
  );

  const produced = await run(
    py,
    [join(HERE, 'produce_spans.py'), services.kafka.brokers.join(','), topic, String(TRACES)],
    {
      timeout: 60_000,
    },
  );
  assert.deepEqual(JSON.parse(produced.stdout), { messages: TRACES, spans: 2 * TRACES });

  // The log says it at once, the metric counts every letter, `dlq list` shows them.
  // The first letter is said at once; how many the first line counts depends on how the ingest batched them.
  await running.waitFor(/dead-lettered \d+ messages? to .*: missing_tenant: .*default tenant/, 'dead-letter log line');
  let text = '';
  await until(
    `the metric counts the ${TRACES} letters`,
    async () => {
      text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      return new RegExp(`tooltrail_ingest_dead_letters_total\\{reason="missing_tenant"\\} ${TRACES}\\b`).test(text);
    },
    { timeoutMs: 30_000, everyMs: 250 },
  );
  assert.match(text, new RegExp(`tooltrail_ingest_dead_letters_total\\{reason="missing_tenant"\\} ${TRACES}\\b`));
  const listed = await letters();
  assert.deepEqual(
    listed.map((l) => [l.reason, l.state, l.spans]),
    Array.from({ length: TRACES }, () => ['missing_tenant', 'pending', 2]),
  );
  const shown = await cli('dlq', 'show', listed[0]!.id);
  assert.match(shown.out, /service\.name=py-kafka-agent tooltrail\.tenant=\(none\)/);
  assert.match(shown.out, /tool=search_accounts effect=read/);
  assert.ok(!shown.out.includes('py-secret-42'), 'never the raw tool arguments');
  assert.equal(await stored(), 0);
  await running.stop();
  const said = running.lines
    .map((l) => /dead-lettered (\d+) messages? to \S+(?: in the last \d+ s)?: missing_tenant/.exec(l))
    .reduce((sum, m) => sum + (m ? Number(m[1]) : 0), 0);
  assert.equal(said, TRACES, `every letter is said by shutdown, none twice:\n${running.lines.join('\n')}`);

  // The fix: a default tenant for what comes from Kafka without one.
  running = await up(['--port', String(await freePort()), '--default-tenant', 'py-team'], {
    TOOLTRAIL_COLLECTOR_TOKENS: 'py-test-token-0123456789=acme',
  });
  await running.waitFor(
    new RegExp(`spans in ${topic} without tooltrail.tenant are stored as tenant "py-team" \\(--default-tenant\\)`),
    'line naming the default tenant',
  );
  const replay = await cli('dlq', 'replay', '--reason', 'missing_tenant');
  assert.equal(replay.code, 0, replay.err);
  assert.match(replay.out, new RegExp(`^replayed ${TRACES} letter\\(s\\) to ${topic}; skipped 0`));
  await until('the replayed letters are stored', async () => (await stored()) >= TRACES, {
    timeoutMs: 60_000,
    everyMs: 250,
  });
  await drained();
  assert.equal(await stored(), TRACES);
  assert.equal(
    await count(
      `SELECT count() AS n FROM {db:Identifier}.tool_calls WHERE tenant = 'py-team' AND tool_name = 'search_accounts'`,
    ),
    TRACES,
  );
  assert.equal(await count(`SELECT count() AS n FROM {db:Identifier}.spans WHERE Tenant = 'py-team'`), TRACES);

  const again = await cli('dlq', 'replay', '--reason', 'missing_tenant');
  assert.match(again.out, new RegExp(`^replayed 0 letter\\(s\\); skipped ${TRACES}`));
  const forced = await cli('dlq', 'replay', '--all', '--force');
  assert.match(forced.out, new RegExp(`^replayed ${TRACES} letter\\(s\\)`));
  await drained();
  assert.equal(await stored(), TRACES, 'a second and a forced replay store nothing more');
  assert.equal(
    await count(`SELECT uniqExact(trace_id, span_id) AS n FROM {db:Identifier}.tool_calls WHERE tenant = 'py-team'`),
    TRACES,
  );
  assert.deepEqual(
    (await letters()).map((l) => l.state),
    Array.from({ length: TRACES }, () => 'replayed'),
  );
});
