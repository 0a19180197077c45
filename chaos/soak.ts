/**
 * One soak: private stack up, steady load, the fault schedule, then drain and count. Shared by `npm run chaos`
 * (chaos/main.ts) and the short version in the test suite (test/e2e/chaos-soak.test.ts).
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createKafkaClient,
  fetchConsumerLag,
  type KafkaClientKind,
  kafkaClientKindOf,
} from '../platform/kafka/index.ts';
import { countStored, type StoredCounts, VisibilityPoller, waitForDrain } from './accounting.ts';
import { RefusalTally, scrapeThrottled } from './collector-refusals.ts';
import { type DuplicatesReport, formatDuplicates, whereDuplicated } from './duplicates.ts';
import {
  buildSchedule,
  FAULT_KINDS,
  type FaultKind,
  type FaultOptions,
  type FaultRecord,
  type FaultState,
  inject,
  newFaultState,
  type ScheduledFault,
} from './faults.ts';
import { type LoadCounters, LoadGenerator } from './load.ts';
import { type Stack, startStack, type UnplannedExit } from './stack.ts';
import { formatMissing, type MissingReport, readBackMissing } from './topic-readback.ts';

export interface SoakOptions extends FaultOptions {
  /** How long the load runs (at least, with `loadAfterLastFaultMs`). */
  durationMs: number;
  /**
   * When set, the load also runs until every fault has ended and this long after the last one: the short soaks pack
   * their faults into a short `durationMs` (they then run back to back) and each fault's recovery still meets load.
   */
  loadAfterLastFaultMs?: number;
  /** Tool spans per second. */
  rate: number;
  spansPerRequest: number;
  /** Credentials the load takes in turn: each tenant gets `limits.tenantShare` of the collector's slots. */
  loadTenants: number;
  seed: number;
  faults: FaultKind[];
  /** Brokers of the private Kafka (3 for the cluster faults) and ingest processes in its consumer group. */
  kafkaBrokers: number;
  ingestInstances: number;
  /** The Kafka client the collector and the ingests run (absent: the default, or TOOLTRAIL_KAFKA_CLIENT). */
  kafkaClient?: KafkaClientKind;
  /** Share of the collector's 200s the load acts as if it never got, re-sending the request (see load.ts). */
  lostAnswers: number;
  /** How long to keep retrying unacknowledged requests after the load stops. */
  retryDrainMs: number;
  /** How long to wait for the ingest to store everything acknowledged. */
  storeDrainMs: number;
  /** Keeps every component's whole log and the private services' logs there, and the report as JSON. */
  logDir?: string;
  log: (message: string) => void;
  /** Called once the stack is up, with a way to tear it down (for signal handlers). */
  onStack?: (stack: Stack) => void;
}

export interface SoakReport {
  durationS: number;
  /** How long the load ran, for the rates (spans sent and acknowledged per second of load). */
  loadS: number;
  /** Scheduled faults not started because the ones before them overran the load. */
  faultsNotStarted: FaultKind[];
  /** Spans acknowledged before the load stopped (the retry drain acknowledges the rest). */
  ackedDuringLoad: number;
  rate: number;
  spansPerRequest: number;
  loadTenants: number;
  /** The collector's own refusals by `status/reason` (its metrics, summed over restarts). */
  refusals: [string, number][];
  /** Where the missing spans are, read back from Kafka; absent when nothing was missing. */
  missing?: MissingReport;
  /** Why the read-back could not answer. */
  missingReadError?: string;
  /** Where the spans stored twice come from, read back from Kafka and the batch log; absent when none was. */
  duplicates?: DuplicatesReport;
  duplicatesReadError?: string;
  seed: number;
  load: LoadCounters;
  /** Requests still unacknowledged when the retry drain ended (their spans count neither as acked nor lost). */
  neverAcknowledgedRequests: number;
  counts: StoredCounts;
  maxDelayMs: number;
  p99DelayMs: number;
  delaySampledRequests: number;
  faults: FaultRecord[];
  kafkaBrokers: number;
  ingestInstances: number;
  kafkaClient: KafkaClientKind;
  /** Consumer group generations after the first (each a rebalance), counted from the ingests' leader joins. */
  rebalances: number;
  /** Partition leaders that changed broker during the cluster faults. */
  leadershipMoves: number;
  /** Messages still in Kafka past the ingest group's committed offsets after the drain (-1: unknown). */
  unconsumed: number;
  /** The last lines of each ingest instance (printed when something was lost). */
  ingestLogTails: { name: string; lines: string[] }[];
  /** Component exits nobody planned (each restarted by the soak's supervisor), with their last log lines. */
  unplannedExits: UnplannedExit[];
}

export const DEFAULT_SOAK: Omit<SoakOptions, 'log'> = {
  durationMs: 10 * 60_000,
  rate: 1_000,
  spansPerRequest: 20,
  loadTenants: 1,
  seed: 1,
  faults: [...FAULT_KINDS],
  kafkaBrokers: 1,
  ingestInstances: 1,
  lostAnswers: 0.01,
  clickhouseOutageMs: 30_000,
  burstConcurrency: 256,
  burstMs: 5_000,
  retryDrainMs: 90_000,
  storeDrainMs: 180_000,
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runSchedule(
  schedule: ScheduledFault[],
  stack: Stack,
  load: LoadGenerator,
  o: SoakOptions,
  t0: number,
  state: FaultState,
  notStarted: FaultKind[],
): Promise<FaultRecord[]> {
  const done: FaultRecord[] = [];
  for (const f of schedule) {
    const wait = t0 + f.atMs - Date.now();
    if (wait > 0) await sleep(wait);
    const start = Date.now();
    const atS = (start - t0) / 1000;
    // Faults that overran their slots push the rest past the load: a kind that already ran is not started again
    // then (the drain would wait behind it); every kind still runs once.
    if (start - t0 >= o.durationMs && done.some((d) => d.kind === f.kind)) {
      notStarted.push(f.kind);
      o.log(`t=${atS.toFixed(0)}s load over: ${f.kind} not started again`);
      continue;
    }
    o.log(`t=${atS.toFixed(0)}s fault ${f.kind} ...`);
    try {
      const { detail, asPlanned } = await inject(f.kind, stack, load, o, state);
      done.push({ kind: f.kind, atS, tookS: (Date.now() - start) / 1000, detail, asPlanned });
      o.log(
        `t=${((Date.now() - t0) / 1000).toFixed(0)}s fault ${f.kind} ${asPlanned ? 'done' : 'NOT as planned'}: ${detail}`,
      );
    } catch (err) {
      const error = (err as Error).message;
      done.push({ kind: f.kind, atS, tookS: (Date.now() - start) / 1000, detail: 'failed', asPlanned: false, error });
      o.log(`fault ${f.kind} FAILED: ${error}`);
    }
  }
  return done;
}

export async function runSoak(o: SoakOptions): Promise<SoakReport> {
  const kafkaClient = o.kafkaClient ?? kafkaClientKindOf(process.env);
  const stack = await startStack(o.log, {
    kafkaBrokers: o.kafkaBrokers,
    ingestInstances: o.ingestInstances,
    loadTenants: o.loadTenants,
    kafkaClient,
    ...(o.logDir ? { logDir: o.logDir } : {}),
  });
  const state = newFaultState();
  o.onStack?.(stack);
  const load = new LoadGenerator({
    url: stack.collectorUrl,
    tokens: stack.loadTokens,
    rate: o.rate,
    spansPerRequest: o.spansPerRequest,
    seed: o.seed,
    lostAnswers: o.lostAnswers,
  });
  const poller = new VisibilityPoller(stack.ch, stack.clickhouse.endpoint, stack.database);
  try {
    const schedule = buildSchedule(o.faults, o.durationMs, o.seed);
    o.log(`schedule: ${schedule.map((f) => `${f.kind}@${Math.round(f.atMs / 1000)}s`).join(', ')}`);
    const t0 = Date.now();
    poller.start();
    load.start();
    const refusals = new RefusalTally();
    const scrape = async () => {
      const s = await scrapeThrottled(stack.collectorMetricsUrl);
      if (s) refusals.add(s);
    };
    const scraper = setInterval(() => void scrape(), 5_000);
    scraper.unref();
    const progress = setInterval(() => {
      const c = load.counters;
      o.log(
        `t=${((Date.now() - t0) / 1000).toFixed(0)}s sent ${c.spansSent} acked ${c.spansAcked} refused ${c.refused429}x429 ${c.refused503}x503 conn-errors ${c.connectionErrors} timeouts ${c.timeouts}`,
      );
    }, 15_000);
    progress.unref();
    const notStarted: FaultKind[] = [];
    const faultsRun = runSchedule(schedule, stack, load, o, t0, state, notStarted);
    await sleep(o.durationMs);
    if (o.loadAfterLastFaultMs !== undefined) {
      await faultsRun;
      await sleep(o.loadAfterLastFaultMs);
    }
    await load.stop();
    const loadS = (Date.now() - t0) / 1000;
    const ackedDuringLoad = load.counters.spansAcked;
    const faults = await faultsRun; // a fault still running finishes before the drain
    o.log(`load stopped; retrying ${load.unacknowledged} unacknowledged request(s)`);
    await load.drain(o.retryDrainMs);
    clearInterval(progress);
    clearInterval(scraper);
    await scrape();
    const neverAcknowledgedRequests = load.unacknowledged;
    load.close();
    o.log('waiting for the ingest to store everything acknowledged');
    await waitForDrain(
      stack.ch,
      stack.clickhouse.endpoint,
      stack.database,
      load.counters.spansAcked,
      5_000,
      o.storeDrainMs,
    );
    const unconsumed = await fetchConsumerLag(
      createKafkaClient({ brokers: stack.kafkaBrokers, clientId: 'chaos-lag', quiet: true }),
      stack.groupId,
      stack.topic,
    ).then(
      (parts) => parts.reduce((n, p) => n + p.lag, 0),
      () => -1,
    );
    await sleep(1_000); // one more poll so the last rows are sampled
    await poller.stop();
    const counts = await countStored(stack.ch, stack.database, load.requests);
    const readBack = counts.lost > 0 ? await whereMissing(stack, counts.lostAll, o.log) : {};
    const dupBack = counts.duplicated > 0 ? await whereFrom(stack, counts.duplicatedAll, o.log) : {};
    const d = poller.delays(load.requests);
    const report: SoakReport = {
      durationS: (Date.now() - t0) / 1000,
      loadS,
      ackedDuringLoad,
      faultsNotStarted: notStarted,
      rate: o.rate,
      spansPerRequest: o.spansPerRequest,
      loadTenants: o.loadTenants,
      refusals: refusals.totals(),
      ...readBack,
      ...dupBack,
      seed: o.seed,
      load: load.counters,
      neverAcknowledgedRequests,
      counts,
      maxDelayMs: d.maxMs,
      p99DelayMs: d.p99Ms,
      delaySampledRequests: d.sampled,
      faults,
      kafkaBrokers: o.kafkaBrokers,
      ingestInstances: o.ingestInstances,
      kafkaClient,
      rebalances: Math.max(0, stack.leaderJoins - 1),
      leadershipMoves: state.leadershipMoves,
      unconsumed,
      ingestLogTails: stack.ingests.map((c) => ({ name: c.name, lines: c.log.slice(-15) })),
      unplannedExits: [...stack.collector.unplannedExits, ...stack.ingests.flatMap((c) => c.unplannedExits)],
    };
    if (o.logDir) writeFileSync(join(o.logDir, 'report.json'), JSON.stringify(report, null, 1));
    return report;
  } finally {
    load.close();
    await poller.stop();
    await stack.close();
  }
}

/** Reads the topic and its dead letters back for the acknowledged spans that were not stored. */
async function whereMissing(
  stack: Stack,
  lost: string[],
  log: (m: string) => void,
): Promise<{ missing?: MissingReport; missingReadError?: string }> {
  log(
    `${lost.length} acknowledged span(s) not stored: reading ${stack.topic} and its dead letters back from the start`,
  );
  const kafka = createKafkaClient({ brokers: stack.kafkaBrokers, clientId: 'chaos-readback', quiet: true });
  try {
    return { missing: await readBackMissing(kafka, [stack.topic, stack.dlqTopic], lost, { timeoutMs: 600_000 }) };
  } catch (err) {
    return { missingReadError: (err as Error).message };
  }
}

/** Reads the topic and the batch log back for the span ids stored twice. */
async function whereFrom(
  stack: Stack,
  duplicated: string[],
  log: (m: string) => void,
): Promise<{ duplicates?: DuplicatesReport; duplicatesReadError?: string }> {
  log(`${duplicated.length} span id(s) stored twice: reading ${stack.topic} and the batch log back`);
  const kafka = createKafkaClient({ brokers: stack.kafkaBrokers, clientId: 'chaos-readback', quiet: true });
  try {
    const duplicates = await whereDuplicated(kafka, stack.ch, {
      database: stack.database,
      topic: stack.topic,
      duplicated,
      timeoutMs: 600_000,
    });
    return { duplicates };
  } catch (err) {
    return { duplicatesReadError: (err as Error).message };
  }
}

/** The figures the issue asks for, one per line. */
export function formatReport(r: SoakReport): string[] {
  const c = r.counts;
  const l = r.load;
  return [
    `chaos soak: ${r.durationS.toFixed(0)} s (load + drain), ${r.rate} spans/s in requests of ${r.spansPerRequest} from ${r.loadTenants} tenant(s), seed ${r.seed}, ${r.kafkaBrokers} Kafka broker(s), ${r.ingestInstances} ingest instance(s), Kafka client ${r.kafkaClient}`,
    ...r.faults.map(
      (f) =>
        `  fault at ${f.atS.toFixed(0)} s: ${f.kind}: ${f.error ? `FAILED ${f.error}` : `${f.asPlanned ? 'as planned' : 'NOT as planned'}: ${f.detail}`}`,
    ),
    ...(r.faultsNotStarted.length
      ? [
          `  faults not started:         ${r.faultsNotStarted.length} (${r.faultsNotStarted.join(', ')}): the ones before overran the load`,
        ]
      : []),
    `  spans sent:                 ${l.spansSent} (${l.requestsSent} requests, ${l.attempts} attempts)`,
    `  acknowledged (200):         ${l.spansAcked}`,
    `  sent / acked per second:    ${(l.spansSent / r.loadS).toFixed(0)} / ${(r.ackedDuringLoad / r.loadS).toFixed(0)} spans/s over the ${r.loadS.toFixed(0)} s of load`,
    `  refused with retry:         ${l.spansRefused} span-attempts (${l.refused429} x 429, ${l.refused503} x 503)`,
    `  collector refusals:         ${r.refusals.length ? r.refusals.map(([k, n]) => `${n} x ${k}`).join(', ') : 'none'} (its metrics, by status/reason)`,
    `  connection errors/timeouts: ${l.connectionErrors} / ${l.timeouts} (retried)`,
    `  answers lost (re-sent):     ${l.answersLost} request(s) the collector had acknowledged, sent again`,
    `  rejected (other status):    ${l.rejected}${l.rejected ? ` ${JSON.stringify(l.rejectedStatuses)}` : ''}`,
    `  never acknowledged:         ${r.neverAcknowledgedRequests} request(s)`,
    `  stored:                     ${c.stored} (+${c.storedUnacknowledged} stored though never acknowledged)`,
    `  lost (acked, not stored):   ${c.lost}${c.lost ? ` e.g. ${c.lostSpanIds.join(',')}` : ''}`,
    ...(r.missing ? formatMissing(r.missing) : []),
    ...(r.missingReadError ? [`  read back from Kafka:       failed: ${r.missingReadError}`] : []),
    `  duplicated:                 ${c.duplicated} span ids (${c.duplicateRows} extra rows)${c.duplicated ? ` e.g. ${c.duplicatedSpanIds.join(',')}` : ''}`,
    ...(r.duplicates ? formatDuplicates(r.duplicates) : []),
    ...(r.duplicatesReadError ? [`  where the duplicates are:   read back failed: ${r.duplicatesReadError}`] : []),
    `  rows of unknown span ids:   ${c.unknown}`,
    `  re-sends left out (ingest): ${c.resentLeftOut} message(s) Kafka held twice`,
    `  longest end-to-end delay:   ${(r.maxDelayMs / 1000).toFixed(1)} s (p99 ${(r.p99DelayMs / 1000).toFixed(1)} s, ${r.delaySampledRequests} requests sampled)`,
    `  left in Kafka unconsumed:   ${r.unconsumed < 0 ? 'unknown' : `${r.unconsumed} message(s)`}`,
    `  rebalances (ingest group):  ${r.rebalances}`,
    `  leadership moves:           ${r.leadershipMoves} (partition leaders that changed broker in the cluster faults)`,
    `  unplanned exits restarted:  ${r.unplannedExits.length}`,
    ...r.unplannedExits.map((e) => `    ${e.name} at ${e.atS.toFixed(0)} s (${e.how}): ${e.lastLines.join(' | ')}`),
    ...(c.lost > 0 || c.duplicated > 0
      ? r.ingestLogTails.flatMap((t) => [`  last lines of ${t.name}:`, ...t.lines.map((l) => `    ${l}`)])
      : []),
  ];
}

/** The rule: nothing acknowledged is lost, nothing is stored twice. */
export function soakPassed(r: SoakReport): boolean {
  return r.counts.lost === 0 && r.counts.duplicated === 0 && r.counts.unknown === 0;
}
