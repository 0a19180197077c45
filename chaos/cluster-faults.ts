/**
 * Faults that need the cluster shape (a private 3-broker Kafka, several ingest instances in one group): a broker
 * holding leaders killed -9 and restarted, a partition reassigned off its leader and back, and every ingest instance
 * killed -9 and restarted in turn while the others take its partitions.
 */
import { createKafkaClient, type KafkaClient, type PartitionState, partitionStates } from '../platform/kafka/index.ts';
import { reassignmentsInProgress, reassignPartition } from './kafka-reassign.ts';
import type { Stack } from './stack.ts';

export const CLUSTER_FAULT_KINDS = ['broker-kill9', 'partition-reassign', 'ingest-rolling-kill9'] as const;
export type ClusterFaultKind = (typeof CLUSTER_FAULT_KINDS)[number];

type KafkaNode = Stack['kafkaNodes'][number];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function admin(stack: Stack): KafkaClient {
  return createKafkaClient({ brokers: stack.kafkaBrokers, clientId: 'chaos-admin', quiet: true });
}

/** How long a killed broker gets to be back in every ISR: recovering its logs after kill -9 on 2 loaded cores. */
export const REJOIN_TIMEOUT_MS = 300_000;
// A restarted ingest joins once the killed member's session (6 s in the soak) expires and the group rebalances.
const GROUP_JOIN_TIMEOUT_MS = 60_000;
/** Start-ups of a killed broker tried before the fault gives up (a supervisor restarting a crashed node). */
const START_ATTEMPTS = 3;

/** Polls `check` every 0.5 s until it answers true; undefined after `timeoutMs`, else the time it took. */
async function within(check: () => Promise<boolean>, timeoutMs: number): Promise<number | undefined> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    try {
      if (await check()) return Date.now() - t0;
    } catch {
      // metadata requests fail while a broker is down or an election runs: ask again
    }
    await sleep(500);
  }
  return undefined;
}

/** As `within`, but fails naming `what`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<number> {
  const took = await within(check, timeoutMs);
  if (took === undefined) throw new Error(`${what}: not after ${timeoutMs / 1000} s`);
  return took;
}

const allInSync = (parts: PartitionState[]) =>
  parts.length > 0 && parts.every((p) => p.isr.length === p.replicas.length);
const leaders = (parts: PartitionState[]) => parts.map((p) => `p${p.partition}:${p.leader}`).join(' ');
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Leadership moves seen by the cluster faults (partition leaders that changed broker). */
export interface ClusterFaultCounters {
  leadershipMoves: number;
}

/** What a fault did, and whether it did what it is named after (a missed step says which in `detail`). */
export interface FaultOutcome {
  detail: string;
  asPlanned: boolean;
}

/**
 * Starts a node whose process is gone, again after a start-up that exited (as a supervisor would), at most
 * START_ATTEMPTS times; a node still alive but slow is left to recover (up() would replace it). Returns the notes.
 */
async function superviseStart(node: KafkaNode): Promise<{ started: boolean; notes: string[] }> {
  const notes: string[] = [];
  for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
    if (node.running()) return { started: true, notes };
    try {
      await node.up();
      return { started: true, notes };
    } catch (err) {
      const alive = node.running();
      notes.push(`start ${attempt} ${alive ? 'slow' : 'exited'}: ${(err as Error).message.split('\n')[0]}`);
      if (alive) return { started: true, notes }; // still recovering its logs: the ISR wait decides
      await sleep(2_000);
    }
  }
  return { started: false, notes };
}

/** Every node running (restarted by the supervisor if not) and every partition fully in sync: safe to kill one. */
async function clusterWhole(stack: Stack, kafka: KafkaClient): Promise<{ ok: boolean; notes: string[] }> {
  const notes: string[] = [];
  for (const n of stack.kafkaNodes) {
    if (n.running()) continue;
    const r = await superviseStart(n);
    notes.push(`broker ${n.node.id} was down before the kill: restarted (${r.notes.join('; ') || 'first start'})`);
  }
  const took = await within(async () => allInSync(await partitionStates(kafka, stack.topic)), REJOIN_TIMEOUT_MS);
  if (took !== undefined && took > 1_000) notes.push(`waited ${secs(took)} for every ISR to be full before the kill`);
  return { ok: took !== undefined, notes };
}

async function brokerKill9(stack: Stack, kafka: KafkaClient, counters: ClusterFaultCounters): Promise<FaultOutcome> {
  const countMoves = (a: PartitionState[], b: PartitionState[]) => {
    const moved = b.filter((p) => a.find((q) => q.partition === p.partition)?.leader !== p.leader).length;
    counters.leadershipMoves += moved;
    return moved;
  };
  // Never a second broker while one is down: below min.insync.replicas the topic refuses every write.
  const whole = await clusterWhole(stack, kafka);
  const pre = whole.notes.length ? `${whole.notes.join('; ')}; ` : '';
  if (!whole.ok)
    return {
      asPlanned: false,
      detail: `${pre}not killed: a partition still lacked a replica after ${REJOIN_TIMEOUT_MS / 1000} s`,
    };
  const before = await partitionStates(kafka, stack.topic);
  const led = new Map<number, number>();
  for (const p of before) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
  const [victim, count] = [...led.entries()].sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
  const node = stack.kafkaNodes.find((n) => n.node.id === victim);
  if (!node) throw new Error(`no node leads ${stack.topic} (leaders ${leaders(before)})`);
  const t0 = Date.now();
  await node.kill9();
  let during: PartitionState[] = [];
  const movedAfter = await within(async () => {
    during = await partitionStates(kafka, stack.topic);
    return during.every((p) => p.leader !== victim && p.leader >= 0);
  }, REJOIN_TIMEOUT_MS);
  const moved = countMoves(before, during);
  const moves =
    movedAfter === undefined
      ? `leaders NOT all moved off it within ${REJOIN_TIMEOUT_MS / 1000} s (${leaders(during)})`
      : `${moved} leader(s) moved within ${secs(movedAfter)} (${leaders(before)} -> ${leaders(during)})`;
  await sleep(2_000); // the load keeps producing to the two survivors (ISR 2 = min.insync.replicas)
  const tUp = Date.now();
  const start = await superviseStart(node);
  const restarts = start.notes.length ? ` (${start.notes.join('; ')})` : '';
  const synced = start.started
    ? await within(async () => allInSync(await partitionStates(kafka, stack.topic)), REJOIN_TIMEOUT_MS)
    : undefined;
  const rejoin =
    synced === undefined
      ? `NOT back in every ISR ${secs(Date.now() - t0)} after the kill${restarts}`
      : `restarted${restarts}, back in every ISR ${secs(Date.now() - t0)} after the kill (after restart ${secs(Date.now() - tUp)})`;
  return {
    asPlanned: movedAfter !== undefined && moved > 0 && synced !== undefined,
    detail: `${pre}broker ${victim} (leader of ${count} partition(s)) killed -9; ${moves}; ${rejoin}`,
  };
}

export async function injectClusterFault(
  kind: ClusterFaultKind,
  stack: Stack,
  round: number,
  counters: ClusterFaultCounters,
): Promise<FaultOutcome> {
  if (stack.kafkaNodes.length < 3 && kind !== 'ingest-rolling-kill9')
    throw new Error(`${kind} needs a cluster of 3 brokers (--kafka-brokers 3)`);
  const kafka = admin(stack);
  const countMoves = (a: PartitionState[], b: PartitionState[]) => {
    const moved = b.filter((p) => a.find((q) => q.partition === p.partition)?.leader !== p.leader).length;
    counters.leadershipMoves += moved;
    return moved;
  };
  switch (kind) {
    case 'broker-kill9':
      return brokerKill9(stack, kafka, counters);
    case 'partition-reassign': {
      // A reassignment needs every replica: after a broker kill, wait until it is back (restarted if it is down).
      const whole = await clusterWhole(stack, kafka);
      const pre = whole.notes.length ? `${whole.notes.join('; ')}; ` : '';
      if (!whole.ok)
        return {
          asPlanned: false,
          detail: `${pre}not reassigned: a partition lacked a replica after ${REJOIN_TIMEOUT_MS / 1000} s`,
        };
      const before = await partitionStates(kafka, stack.topic);
      const p = before[round % before.length];
      if (!p) throw new Error(`${stack.topic} has no partitions`);
      const [first, ...rest] = p.replicas.includes(p.leader)
        ? [p.leader, ...p.replicas.filter((r) => r !== p.leader)]
        : p.replicas;
      if (first === undefined || rest.length < 2)
        throw new Error(`partition ${p.partition} has replicas ${p.replicas}`);
      const t0 = Date.now();
      // Off its leader (leadership must move), then back (that broker copies the partition again from the others).
      await reassignPartition(stack.kafkaBrokers, stack.topic, p.partition, rest);
      let mid: PartitionState[] = [];
      await until(
        `partition ${p.partition} reassigned to [${rest}]`,
        async () => {
          mid = await partitionStates(kafka, stack.topic);
          const q = mid.find((x) => x.partition === p.partition);
          return (
            (await reassignmentsInProgress(stack.kafkaBrokers, stack.topic)).length === 0 &&
            q !== undefined &&
            q.replicas.length === rest.length &&
            q.leader !== first
          );
        },
        REJOIN_TIMEOUT_MS,
      );
      const moved = countMoves(before, mid);
      const back = [...rest, first];
      await reassignPartition(stack.kafkaBrokers, stack.topic, p.partition, back);
      await until(
        `partition ${p.partition} reassigned back to [${back}]`,
        async () => {
          const q = (await partitionStates(kafka, stack.topic)).find((x) => x.partition === p.partition);
          return (
            (await reassignmentsInProgress(stack.kafkaBrokers, stack.topic)).length === 0 &&
            q !== undefined &&
            q.replicas.length === back.length &&
            q.isr.length === back.length
          );
        },
        REJOIN_TIMEOUT_MS,
      );
      return {
        asPlanned: moved > 0,
        detail: `${pre}${stack.topic}[${p.partition}] replicas [${p.replicas}] -> [${rest}] (leader ${first} -> ${mid.find((x) => x.partition === p.partition)?.leader}, ${moved} move) -> [${back}], in sync after ${secs(Date.now() - t0)}`,
      };
    }
    case 'ingest-rolling-kill9': {
      const seen: string[] = [];
      let allReady = true;
      for (const c of stack.ingests) {
        // Kill while an insert is running when one shows up within 3 s (batches are almost always buffered anyway).
        const inFlight = await insertsInFlight(stack, 3_000);
        await c.kill9();
        await sleep(1_000);
        const ready = await c.start();
        // Restarted means a member of the group again: the next kill waits for this one's join, so that two
        // restarts never fold into one rebalance (a killed member stays in the group until its session expires).
        const joined = ready && (await c.waitForLine((l) => l.includes('group join'), GROUP_JOIN_TIMEOUT_MS));
        allReady &&= joined;
        const how = !ready
          ? ' (exited while starting: restarted by the supervisor)'
          : joined
            ? ''
            : ` (not back in the group after ${secs(GROUP_JOIN_TIMEOUT_MS)})`;
        seen.push(`${c.name}${inFlight ? ' (insert in flight)' : ''}${how}`);
      }
      return {
        asPlanned: allReady,
        detail: `killed -9 and restarted one at a time, each back in the group before the next: ${seen.join(', ')}`,
      };
    }
  }
}

async function insertsInFlight(stack: Stack, waitMs: number): Promise<boolean> {
  const deadline = Date.now() + waitMs;
  while (Date.now() < deadline) {
    try {
      const rs = await stack.ch.query({
        query: `SELECT count() AS n FROM system.processes WHERE query_kind = 'Insert' AND current_database = {db:String}`,
        query_params: { db: stack.database },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ n: string }>();
      if (Number(row?.n) > 0) return true;
    } catch {
      return false;
    }
    await sleep(50);
  }
  return false;
}
