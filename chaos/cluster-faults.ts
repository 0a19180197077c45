/**
 * Faults that need the cluster shape (a private 3-broker Kafka, several ingest instances in one group): a broker
 * holding leaders killed -9 and restarted, a partition reassigned off its leader and back, and every ingest instance
 * killed -9 and restarted in turn while the others take its partitions.
 */
import type { Stack } from '../cli/stack/processes.ts';
import {
  createKafkaClient,
  type KafkaClient,
  type PartitionState,
  partitionStates,
  reassignmentsInProgress,
  reassignPartition,
} from '../platform/kafka/index.ts';

export const CLUSTER_FAULT_KINDS = ['broker-kill9', 'partition-reassign', 'ingest-rolling-kill9'] as const;
export type ClusterFaultKind = (typeof CLUSTER_FAULT_KINDS)[number];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function admin(stack: Stack): KafkaClient {
  return createKafkaClient({ brokers: stack.kafkaBrokers, clientId: 'chaos-admin', quiet: true });
}

/** Polls `check` every 0.5 s until it answers true; fails naming `what` after `timeoutMs`. */
async function until(what: string, check: () => Promise<boolean>, timeoutMs = 90_000): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    try {
      if (await check()) return Date.now() - t0;
    } catch {
      // metadata requests fail while a broker is down or an election runs: ask again
    }
    await sleep(500);
  }
  throw new Error(`${what}: not after ${timeoutMs / 1000} s`);
}

const allInSync = (parts: PartitionState[]) =>
  parts.length > 0 && parts.every((p) => p.isr.length === p.replicas.length);
const leaders = (parts: PartitionState[]) => parts.map((p) => `p${p.partition}:${p.leader}`).join(' ');

/** Leadership moves seen by the cluster faults (partition leaders that changed broker). */
export interface ClusterFaultCounters {
  leadershipMoves: number;
}

export async function injectClusterFault(
  kind: ClusterFaultKind,
  stack: Stack,
  round: number,
  counters: ClusterFaultCounters,
): Promise<string> {
  if (stack.kafkaNodes.length < 3 && kind !== 'ingest-rolling-kill9')
    throw new Error(`${kind} needs a cluster of 3 brokers (--kafka-brokers 3)`);
  const kafka = admin(stack);
  const countMoves = (a: PartitionState[], b: PartitionState[]) => {
    const moved = b.filter((p) => a.find((q) => q.partition === p.partition)?.leader !== p.leader).length;
    counters.leadershipMoves += moved;
    return moved;
  };
  switch (kind) {
    case 'broker-kill9': {
      const before = await partitionStates(kafka, stack.topic);
      const led = new Map<number, number>();
      for (const p of before) led.set(p.leader, (led.get(p.leader) ?? 0) + 1);
      const [victim, count] = [...led.entries()].sort((a, b) => b[1] - a[1])[0] ?? [0, 0];
      const node = stack.kafkaNodes.find((n) => n.node.id === victim);
      if (!node) throw new Error(`no node leads ${stack.topic} (leaders ${leaders(before)})`);
      const t0 = Date.now();
      await node.kill9();
      let during: PartitionState[] = [];
      const movedAfter = await until('leaders moved off the killed broker', async () => {
        during = await partitionStates(kafka, stack.topic);
        return during.every((p) => p.leader !== victim && p.leader >= 0);
      });
      const moved = countMoves(before, during);
      await sleep(2_000); // the load keeps producing to the two survivors (ISR 2 = min.insync.replicas)
      await node.up();
      const synced = await until('the restarted broker back in every ISR', async () =>
        allInSync(await partitionStates(kafka, stack.topic)),
      );
      return `broker ${victim} (leader of ${count} partition(s)) killed -9; ${moved} leader(s) moved within ${(movedAfter / 1000).toFixed(1)} s (${leaders(before)} -> ${leaders(during)}); restarted, back in every ISR ${((Date.now() - t0) / 1000).toFixed(1)} s after the kill (after restart ${(synced / 1000).toFixed(1)} s)`;
    }
    case 'partition-reassign': {
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
      await reassignPartition(kafka, stack.topic, p.partition, rest);
      let mid: PartitionState[] = [];
      await until(`partition ${p.partition} reassigned to [${rest}]`, async () => {
        mid = await partitionStates(kafka, stack.topic);
        const q = mid.find((x) => x.partition === p.partition);
        return (
          (await reassignmentsInProgress(kafka, stack.topic)).length === 0 &&
          q !== undefined &&
          q.replicas.length === rest.length &&
          q.leader !== first
        );
      });
      const moved = countMoves(before, mid);
      const back = [...rest, first];
      await reassignPartition(kafka, stack.topic, p.partition, back);
      await until(`partition ${p.partition} reassigned back to [${back}]`, async () => {
        const q = (await partitionStates(kafka, stack.topic)).find((x) => x.partition === p.partition);
        return (
          (await reassignmentsInProgress(kafka, stack.topic)).length === 0 &&
          q !== undefined &&
          q.replicas.length === back.length &&
          q.isr.length === back.length
        );
      });
      return `${stack.topic}[${p.partition}] replicas [${p.replicas}] -> [${rest}] (leader ${first} -> ${mid.find((x) => x.partition === p.partition)?.leader}, ${moved} move) -> [${back}], in sync after ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    }
    case 'ingest-rolling-kill9': {
      const seen: string[] = [];
      for (const c of stack.ingests) {
        // Kill while an insert is running when one shows up within 3 s (batches are almost always buffered anyway).
        const inFlight = await insertsInFlight(stack, 3_000);
        await c.kill9();
        await sleep(1_000);
        await c.start();
        seen.push(`${c.name}${inFlight ? ' (insert in flight)' : ''}`);
        await sleep(3_000); // the group settles before the next one goes
      }
      return `killed -9 and restarted one at a time: ${seen.join(', ')}`;
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
