/**
 * `npm run chaos`: a bounded soak on loopback against private Kafka and ClickHouse instances (chaos/README.md).
 *
 *   npm run chaos -- [--duration 10m] [--rate 1000] [--seed 1] [--faults ingest-kill9,kafka-restart,...]
 *     [--clickhouse-outage 30s] [--burst-concurrency 256] [--burst-duration 5s] [--lost-answers 0.01]
 *     [--kafka-brokers 3 --ingest-instances 3 --faults broker-kill9,partition-reassign,ingest-rolling-kill9,...]
 *     [--spans-per-request 200] [--tenants 4] [--store-drain 3m]
 *     [--kafka-client platformatic] [--log-dir DIR]
 *
 * Exits 1 when an acknowledged span was lost or a span was stored twice.
 */
import { parseArgs } from 'node:util';
import { isKafkaClientKind, KAFKA_CLIENTS, type KafkaClientKind } from '../platform/kafka/index.ts';
import { FAULT_KINDS, parseFaults } from './faults.ts';
import { DEFAULT_SOAK, formatReport, runSoak, soakPassed } from './soak.ts';
import type { Stack } from './stack.ts';

/** `90`, `90s`, `10m` -> ms. */
export function parseDuration(v: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(v.trim());
  if (!m) throw new Error(`"${v}" is not a duration (e.g. 90s, 10m)`);
  const n = Number(m[1]);
  return m[2] === 'ms' ? n : m[2] === 'm' ? n * 60_000 : n * 1_000;
}

/** `0.01` -> 0.01; a share must be in [0, 1]. */
export function shareOf(v: string): number {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new Error(`"${v}" is not a share between 0 and 1`);
  return n;
}

/** `3` -> 3; a count must be a whole number in [min, max]. */
export function countOf(v: string, flag: string, min: number, max: number): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`--${flag} must be a whole number from ${min} to ${max}, not "${v}"`);
  return n;
}

/** `platformatic` -> the client; anything not in KAFKA_CLIENTS is refused naming the flag. */
export function kafkaClientOf(v: string): KafkaClientKind {
  if (isKafkaClientKind(v)) return v;
  throw new Error(`--kafka-client must be one of ${KAFKA_CLIENTS.join(', ')}, not "${v}"`);
}

const { values: a } = parseArgs({
  options: {
    duration: { type: 'string', default: '10m' },
    rate: { type: 'string', default: String(DEFAULT_SOAK.rate) },
    seed: { type: 'string', default: String(DEFAULT_SOAK.seed) },
    faults: { type: 'string', default: FAULT_KINDS.join(',') },
    'clickhouse-outage': { type: 'string', default: `${DEFAULT_SOAK.clickhouseOutageMs / 1000}s` },
    'burst-concurrency': { type: 'string', default: String(DEFAULT_SOAK.burstConcurrency) },
    'burst-duration': { type: 'string', default: `${DEFAULT_SOAK.burstMs / 1000}s` },
    'lost-answers': { type: 'string', default: String(DEFAULT_SOAK.lostAnswers) },
    'kafka-brokers': { type: 'string', default: String(DEFAULT_SOAK.kafkaBrokers) },
    'ingest-instances': { type: 'string', default: String(DEFAULT_SOAK.ingestInstances) },
    'spans-per-request': { type: 'string', default: String(DEFAULT_SOAK.spansPerRequest) },
    tenants: { type: 'string', default: String(DEFAULT_SOAK.loadTenants) },
    // The collector's and the ingests' Kafka client; absent: TOOLTRAIL_KAFKA_CLIENT, else the default.
    'kafka-client': { type: 'string' },
    'store-drain': { type: 'string', default: `${DEFAULT_SOAK.storeDrainMs / 1000}s` },
    // Keeps every component's whole log, the private services' logs and report.json in this folder.
    'log-dir': { type: 'string' },
  },
});

let stack: Stack | undefined;
const log = (m: string) => console.error(`[chaos ${new Date().toISOString().slice(11, 19)}] ${m}`);
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: stopping every process and removing the private folder`);
    const s = stack;
    if (!s) process.exit(130);
    s.close().finally(() => process.exit(130));
  });
}
// Last resort (an uncaught error skipped the finally): no private broker or ClickHouse outlives us.
process.on('exit', () => stack?.killAllSync());

const report = await runSoak({
  ...DEFAULT_SOAK,
  durationMs: parseDuration(a.duration),
  rate: Number(a.rate),
  seed: Number(a.seed),
  faults: parseFaults(a.faults),
  clickhouseOutageMs: parseDuration(a['clickhouse-outage']),
  burstConcurrency: Number(a['burst-concurrency']),
  burstMs: parseDuration(a['burst-duration']),
  lostAnswers: shareOf(a['lost-answers']),
  kafkaBrokers: countOf(a['kafka-brokers'], 'kafka-brokers', 1, 9),
  ingestInstances: countOf(a['ingest-instances'], 'ingest-instances', 1, 9),
  // An OpenTelemetry SDK's BatchSpanProcessor exports at most 512 spans per request (maxExportBatchSize).
  spansPerRequest: countOf(a['spans-per-request'], 'spans-per-request', 1, 512),
  loadTenants: countOf(a.tenants, 'tenants', 1, 16),
  ...(a['kafka-client'] === undefined ? {} : { kafkaClient: kafkaClientOf(a['kafka-client']) }),
  // A long run at the rate the brokers accept can leave the ingest minutes behind: give the drain that long.
  storeDrainMs: parseDuration(a['store-drain']),
  ...(a['log-dir'] === undefined ? {} : { logDir: a['log-dir'] }),
  log,
  onStack: (s) => {
    stack = s;
  },
});
stack = undefined;
for (const line of formatReport(report)) console.log(line);
const ok = soakPassed(report);
console.log(ok ? 'PASS: nothing acknowledged was lost, nothing was stored twice' : 'FAIL: see lost/duplicated above');
process.exit(ok ? 0 : 1);
