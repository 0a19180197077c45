/**
 * Span -> page latency under a steady load (not part of the test suite): the whole pipeline of `tooltrail up` in
 * Kafka mode (collector -> Kafka -> ingest -> ClickHouse -> incremental evaluator -> Alertmanager -> webhook),
 * fed `--rate` spans/s of background traffic that raises no finding (every read complete), plus a probe every
 * `--probe-every` seconds: a session whose mutation follows an incomplete read. A probe's latency is from the
 * moment its POST to the collector started to the moment the webhook received the page naming its session.
 * A request refused (429, 503, a dropped connection), probe or background, is sent again after a backoff, as an OTLP
 * exporter does; a probe's latency still counts from its first POST. Prints p50 / p99 over the probes (target p99 <= 15 s), the rate the
 * collector actually accepted, probes never paged, and the evaluator's run times (is the page bound by its
 * interval?).
 *
 *   node --import tsx bench/page-latency.ts [--rate 5000] [--seconds 120] [--probe-every 2] [--interval 5]
 * Needs `tooltrail services up` (Kafka, ClickHouse, Alertmanager routing to TOOLTRAIL_WEBHOOK_URL).
 */
import { Agent } from 'node:http';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { startStack } from '../cli/stack/stack.ts';
import { type ClickHouseClient, clickHouseOf } from '../platform/clickhouse.ts';
import { DEFAULT_RETENTION_DAYS } from '../schema/config.ts';
import { dropDatabase } from '../schema/migrations.ts';
import { syntheticMessage } from '../testkit/ingest.ts';
import { services, uniqueName } from '../testkit/services.ts';
import { startWebhookSink } from '../testkit/webhook-sink.ts';
import { postOtlp } from './support/post-otlp.ts';
import { type BenchFigure, printBenchReport } from './support/report.ts';
import { benchSql } from './support/sql.ts';

const { values: args } = parseArgs({
  options: {
    rate: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '120' },
    'probe-every': { type: 'string', default: '2' },
    interval: { type: 'string', default: '5' },
    port: { type: 'string', default: '26180' },
  },
});
const rate = Number(args.rate);
const seconds = Number(args.seconds);
const probeEveryMs = Number(args['probe-every']) * 1000;
const port = Number(args.port);
const SPANS_PER_REQUEST = 50; // 49 tool spans + their parent
const TICK_MS = 100;
const MAX_IN_FLIGHT = 32;
const tenant = uniqueName('latency');
const token = `bench-${tenant}`;
const percentile = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))] as number;
};

const webhook = await startWebhookSink();
const runs: number[] = []; // evaluator run times, ms
const database = uniqueName('tt_bench_latency');
const stack = await startStack({
  services,
  schema: { database, retentionDays: DEFAULT_RETENTION_DAYS },
  mode: 'kafka',
  freshDatabase: true,
  kafka: { topic: uniqueName('tt-latency'), groupId: uniqueName('tt-latency') },
  collector: { host: '127.0.0.1', port, tokens: [{ token, tenant }] },
  evaluateEverySeconds: Number(args.interval),
  pagesFile: join(services.home, `${tenant}-pages.jsonl`),
  env: { ...process.env, TOOLTRAIL_ALERTS_TENANT: tenant, TOOLTRAIL_ALERTS_EVALUATOR_NAME: tenant },
  onEvaluation: (r) => runs.push(r.durationMs),
  log: (line) => {
    if (/error|fail/i.test(line)) console.error(line);
  },
});

const agent = new Agent({ keepAlive: true, maxSockets: MAX_IN_FLIGHT });
const statuses = new Map<number, number>();
let accepted = 0;
let inFlight = 0;
let skipped = 0;
const probes = new Map<string, number>(); // session -> POST start (ms)
let seed = 1_000_000;
let probeSeed = 0;

async function send(body: Buffer, spans: number): Promise<number> {
  inFlight++;
  try {
    const status = await postOtlp(agent, port, body, token);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
    if (status === 200) accepted += spans;
    return status;
  } catch {
    statuses.set(0, (statuses.get(0) ?? 0) + 1);
    return 0;
  } finally {
    inFlight--;
  }
}

/**
 * As an OTLP exporter: retryable refusals (429, 502-504, no answer) sent again after a growing backoff. The
 * background load does so too, so a refusal by the tenant's share of the collector (16 of its 64 requests by
 * default) delays spans instead of dropping them from the load.
 */
const retries = { probe: 0, background: 0 };
async function sendAsExporter(body: Buffer, spans: number, kind: keyof typeof retries): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const status = await send(body, spans);
    if (status !== 0 && status !== 429 && status < 502) return;
    retries[kind]++;
    await new Promise((r) => setTimeout(r, Math.min(100 * 2 ** attempt, 2_000)));
  }
}

const t0 = Date.now();
let nextProbe = t0 + 5_000;
const perTick = (rate * TICK_MS) / 1000 / SPANS_PER_REQUEST;
let owed = 0;
while (Date.now() - t0 < seconds * 1000) {
  const tick = Date.now();
  owed += perTick;
  while (owed >= 1) {
    owed -= 1;
    if (inFlight >= MAX_IN_FLIGHT) {
      skipped++; // the collector (or this process) is not keeping up: counted, never queued without bound
      continue;
    }
    void sendAsExporter(
      syntheticMessage({ tenant, toolSpans: SPANS_PER_REQUEST - 1, seed: seed++, incompleteEvery: 0 }),
      SPANS_PER_REQUEST,
      'background',
    );
  }
  if (tick >= nextProbe) {
    nextProbe += probeEveryMs;
    const s = ++probeSeed;
    probes.set(`sess-${s}`, Date.now());
    void sendAsExporter(syntheticMessage({ tenant, toolSpans: 5, seed: s }), 6, 'probe');
  }
  await new Promise((r) => setTimeout(r, Math.max(0, TICK_MS - (Date.now() - tick))));
}
const loadSeconds = (Date.now() - t0) / 1000;

const pagedAt = (): Map<string, number> => {
  const at = new Map<string, number>();
  for (const n of webhook.notifications) {
    for (const a of n.body.alerts) {
      const session = a.annotations.session;
      if (a.status === 'firing' && session && probes.has(session) && !at.has(session)) at.set(session, n.receivedAt);
    }
  }
  return at;
};
// Probes sent at the end still get their chance: wait until every probe was paged, at most 60 s.
const waitUntil = Date.now() + 60_000;
while (pagedAt().size < probes.size && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 500));
const paged = pagedAt();
const latencies = [...paged].map(([session, at]) => (at - (probes.get(session) as number)) / 1000);
// Where the time went, per probe: POST -> stored (the mutation's ingested_at), stored -> found (the finding's
// first_seen, i.e. the evaluator run that judged it), found -> paged (Alertmanager and the webhook).
const stages = await stageTimes(stack.ch, database, tenant);
await stack.stop();
await webhook.close();
agent.destroy();
await (async () => {
  const ch = clickHouseOf(services.clickhouse);
  await dropDatabase(ch, database);
  await ch.close();
})();

const p50 = percentile(latencies, 50);
const p99 = percentile(latencies, 99);
console.log(
  `\n== span -> page: ${loadSeconds.toFixed(0)} s of load, target ${rate.toLocaleString('en')} spans/s, evaluator every ${args.interval} s; load average ${loadavg()[0]?.toFixed(1)} on ${availableParallelism()} cores ==`,
);
console.log(
  `collector accepted ${(accepted / loadSeconds).toFixed(0)} spans/s (HTTP statuses ${JSON.stringify(Object.fromEntries(statuses))}, background requests sent again after a refusal: ${retries.background}; requests not sent because ${MAX_IN_FLIGHT} were in flight: ${skipped})`,
);
console.log(
  `probes ${probes.size} (sent again after a refusal: ${retries.probe} times), paged ${paged.size}, never paged within 60 s after the load: ${probes.size - paged.size}`,
);
console.log(
  `evaluator: ${runs.length} runs every ${args.interval} s, run time p50 ${percentile(runs, 50)} ms, p99 ${percentile(runs, 99)} ms, max ${Math.max(...runs)} ms`,
);
console.log(
  `latency p50 ${p50.toFixed(1)} s, p99 ${p99.toFixed(1)} s, max ${Math.max(...latencies).toFixed(1)} s  target p99 <= 15 s: ${p99 <= 15 && paged.size === probes.size ? 'met' : 'NOT met'}`,
);
console.log(`latencies (s): ${JSON.stringify(latencies.map((x) => Math.round(x * 10) / 10))}`);
const stage = (f: (session: string, sent: number, paged: number) => number | undefined) => {
  const xs = [...paged]
    .map(([session, at]) => f(session, probes.get(session) as number, at))
    .filter((x): x is number => x !== undefined);
  return xs.length ? `p50 ${percentile(xs, 50).toFixed(1)} s, p99 ${percentile(xs, 99).toFixed(1)} s` : 'n/a';
};
console.log(
  `stages: POST -> stored ${stage((s, sent) => ms(stages.stored.get(s), sent))}; stored -> found ${stage((s) => ms(stages.found.get(s), stages.stored.get(s)))}; found -> paged ${stage((s, _sent, at) => ms(at, stages.found.get(s)))}`,
);
const figures: BenchFigure[] = [
  {
    name: 'collector accepted spans/s',
    value: accepted / loadSeconds,
    unit: 'spans/s',
    target: `${rate} spans/s`,
    met: accepted / loadSeconds >= rate * 0.95,
  },
  { name: 'span -> page p50', value: p50, unit: 's', runs: latencies.length },
  { name: 'evaluator run time p50', value: percentile(runs, 50), unit: 'ms', runs: runs.length },
  {
    name: 'span -> page p99',
    value: p99,
    unit: 's',
    runs: latencies.length,
    target: '≤ 15 s',
    met: p99 <= 15 && paged.size === probes.size,
  },
];
printBenchReport({ bench: 'page-latency', figures });

function ms(later: number | undefined, earlier: number | undefined): number | undefined {
  return later === undefined || earlier === undefined ? undefined : (later - earlier) / 1000;
}

async function stageTimes(
  ch: ClickHouseClient,
  db: string,
  t: string,
): Promise<{ stored: Map<string, number>; found: Map<string, number> }> {
  const rows = async (name: string) => {
    const rs = await ch.query({ query: benchSql(name), query_params: { db, tenant: t }, format: 'JSONEachRow' });
    return (await rs.json()) as { session: string; at: string }[];
  };
  const toMap = (xs: { session: string; at: string }[]) =>
    new Map(xs.map((x) => [x.session, Date.parse(`${x.at.replace(' ', 'T')}Z`)]));
  return {
    stored: toMap(await rows('probe_stored_at')),
    found: toMap(await rows('probe_found_at')),
  };
}
