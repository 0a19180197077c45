/**
 * The fault schedule: which faults, when (spread over the run, order shuffled by the seed), and what each does to
 * the private stack. Faults run one after another; one that overruns its slot delays the next, never overlaps it.
 */

import { mulberry32 } from '../platform/seeded-random.ts';
import {
  CLUSTER_FAULT_KINDS,
  type ClusterFaultCounters,
  type FaultOutcome,
  injectClusterFault,
} from './cluster-faults.ts';
import { hostileClients } from './hostile-clients.ts';
import type { LoadGenerator } from './load.ts';
import type { Stack } from './stack.ts';

/** The faults of any stack (the default `--faults`); the cluster ones need `--kafka-brokers 3`. */
export const FAULT_KINDS = [
  'ingest-kill9',
  'kafka-restart',
  'clickhouse-outage',
  'collector-restart',
  'collector-saturation',
  'hostile-clients',
] as const;
export const ALL_FAULT_KINDS = [...FAULT_KINDS, ...CLUSTER_FAULT_KINDS] as const;
export type FaultKind = (typeof ALL_FAULT_KINDS)[number];

export interface FaultOptions {
  /** How long ClickHouse stays stopped. */
  clickhouseOutageMs: number;
  /** Requests kept in flight at once to saturate the collector, and for how long. */
  burstConcurrency: number;
  burstMs: number;
}

export interface FaultRecord {
  kind: FaultKind;
  atS: number;
  tookS: number;
  detail: string;
  /** It did what it is named after (a broker killed, its leaders moved, it rejoined every ISR, ...). */
  asPlanned: boolean;
  error?: string;
}

export function parseFaults(list: string): FaultKind[] {
  const kinds = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = kinds.filter((k) => !(ALL_FAULT_KINDS as readonly string[]).includes(k));
  if (bad.length) throw new Error(`unknown fault(s) ${bad.join(', ')}; known: ${ALL_FAULT_KINDS.join(', ')}`);
  return kinds as FaultKind[];
}

export interface ScheduledFault {
  kind: FaultKind;
  atMs: number;
}

/**
 * Every kind at least once, then again in rounds while there is room (one fault per ~`slotMs`), each round in a
 * seeded order; times spread evenly over the first 85% of the run (the end is left for recovery), jittered.
 */
export function buildSchedule(kinds: FaultKind[], durationMs: number, seed: number, slotMs = 45_000): ScheduledFault[] {
  if (kinds.length === 0) return [];
  const rand = mulberry32(seed); // seeded, so a run's schedule can be replayed
  const window = durationMs * 0.85;
  const count = Math.max(kinds.length, Math.floor(window / slotMs));
  const order: FaultKind[] = [];
  while (order.length < count) {
    const round = [...kinds];
    for (let i = round.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [round[i], round[j]] = [round[j] as FaultKind, round[i] as FaultKind];
    }
    order.push(...round);
  }
  const gap = window / count;
  return order.slice(0, count).map((kind, i) => ({ kind, atMs: Math.round(gap * (i + 0.3 + rand() * 0.4)) }));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** What the faults of one run count across rounds (leader moves) and how often each has run (its round). */
export interface FaultState extends ClusterFaultCounters {
  rounds: Map<FaultKind, number>;
}

export function newFaultState(): FaultState {
  return { leadershipMoves: 0, rounds: new Map() };
}

/** Does one fault to the stack and returns what happened. */
export async function inject(
  kind: FaultKind,
  stack: Stack,
  load: LoadGenerator,
  o: FaultOptions,
  state: FaultState = newFaultState(),
): Promise<FaultOutcome> {
  const round = state.rounds.get(kind) ?? 0;
  state.rounds.set(kind, round + 1);
  switch (kind) {
    case 'broker-kill9':
    case 'partition-reassign':
    case 'ingest-rolling-kill9':
      return injectClusterFault(kind, stack, round, state);
    default:
      return { detail: await injectSingle(kind, stack, load, o), asPlanned: true };
  }
}

/** The faults of any stack: each either does what it says or throws. */
async function injectSingle(
  kind: Exclude<FaultKind, (typeof CLUSTER_FAULT_KINDS)[number]>,
  stack: Stack,
  load: LoadGenerator,
  o: FaultOptions,
): Promise<string> {
  switch (kind) {
    case 'ingest-kill9': {
      await stack.ingest.kill9();
      await sleep(1_000);
      await stack.ingest.start();
      return 'ingest killed with SIGKILL, restarted after 1 s';
    }
    case 'kafka-restart': {
      const t0 = Date.now();
      await stack.kafka.down();
      const down = Date.now() - t0;
      await stack.kafka.up();
      return `Kafka broker stopped (${(down / 1000).toFixed(1)} s to stop) and restarted, back after ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    }
    case 'clickhouse-outage': {
      await stack.clickhouse.down();
      await sleep(o.clickhouseOutageMs);
      await stack.clickhouse.up();
      return `ClickHouse stopped for ${o.clickhouseOutageMs / 1000} s`;
    }
    case 'collector-restart': {
      await stack.collector.terminate();
      await stack.collector.start();
      return 'collector stopped with SIGTERM (drains in-flight requests) and restarted';
    }
    case 'collector-saturation': {
      const r = await load.burst(o.burstConcurrency, o.burstMs);
      return `${o.burstConcurrency} requests in flight for ${o.burstMs / 1000} s: ${r.requests} new requests, ${r.status429} answers 429`;
    }
    case 'hostile-clients': {
      const refusedBefore = load.counters.refused429;
      const detail = await hostileClients(stack);
      return `${detail}; the load got ${load.counters.refused429 - refusedBefore} answers 429 meanwhile`;
    }
  }
}
