/**
 * Partition reassignment, which only the chaos faults (and the leader-failover test) need: Kafka's
 * AlterPartitionReassignments and ListPartitionReassignments requests, sent with @platformatic/kafka's public
 * protocol API over a plaintext connection to any broker (KRaft forwards them to the controller). The product's
 * Kafka module (platform/kafka/) has no such call.
 */
import { alterPartitionReassignmentsV0, Connection, listPartitionReassignmentsV0 } from '@platformatic/kafka';

const TIMEOUT_MS = 30_000;

/** Opens a connection to the first broker that answers, runs `fn` on it, closes it. */
async function withConnection<T>(brokers: string[], fn: (c: Connection) => Promise<T>): Promise<T> {
  let last: unknown;
  for (const broker of brokers) {
    const at = broker.lastIndexOf(':');
    const connection = new Connection('chaos-reassign', { connectTimeout: 3_000, requestTimeout: TIMEOUT_MS });
    try {
      await connection.connect(broker.slice(0, at), Number(broker.slice(at + 1)));
    } catch (err) {
      last = err;
      await connection.close().catch(() => {});
      continue;
    }
    try {
      return await fn(connection);
    } finally {
      await connection.close().catch(() => {});
    }
  }
  throw new Error(
    `no broker of ${brokers.join(',')} answered: ${(last as Error | undefined)?.message ?? 'none given'}`,
  );
}

/** Moves one partition onto `replicas` (the first is the preferred leader). */
export async function reassignPartition(
  brokers: string[],
  topic: string,
  partition: number,
  replicas: number[],
): Promise<void> {
  const r = await withConnection(brokers, (c) =>
    alterPartitionReassignmentsV0.api.async(c, TIMEOUT_MS, false, [
      { name: topic, partitions: [{ partitionIndex: partition, replicas }] },
    ]),
  );
  const failed = r.responses.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0);
  if (r.errorCode !== 0 || failed) {
    throw new Error(
      `reassigning ${topic}[${partition}] to [${replicas}]: error ${r.errorCode || failed?.errorCode} ${r.errorMessage ?? failed?.errorMessage ?? ''}`,
    );
  }
}

/** Partitions of `topic` whose reassignment the controller has not finished. */
export async function reassignmentsInProgress(brokers: string[], topic: string): Promise<number[]> {
  const r = await withConnection(brokers, (c) => listPartitionReassignmentsV0.api.async(c, TIMEOUT_MS, null));
  if (r.errorCode !== 0) throw new Error(`listing reassignments: error ${r.errorCode} ${r.errorMessage ?? ''}`);
  return r.topics.filter((t) => t.name === topic).flatMap((t) => t.partitions.map((p) => p.partitionIndex));
}
