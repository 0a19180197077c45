import { explained } from '../errors.ts';
import type { BatchConsumer, BatchConsumerOptions, BatchMessage, PartitionLag, SimpleConsumer } from '../types.ts';
import type { Kafkajs } from './client.ts';

/** A consumer-group member reading `topic` from the beginning. The ingest builds its own batch consumer. */
export async function createSimpleConsumer(kafka: Kafkajs, groupId: string, topic: string): Promise<SimpleConsumer> {
  const consumer = kafka.consumer({ groupId });
  await explained(() => consumer.connect());
  await consumer.subscribe({ topic, fromBeginning: true });
  return {
    async run(onMessage) {
      await consumer.run({
        eachMessage: async ({ topic: t, partition, message }) => {
          const headers: Record<string, Buffer | string | undefined> = {};
          for (const [k, v] of Object.entries(message.headers ?? {})) headers[k] = Array.isArray(v) ? v[0] : v;
          await onMessage({
            topic: t,
            partition,
            offset: message.offset,
            key: message.key,
            value: message.value,
            headers,
          });
        },
      });
    },
    disconnect: () => consumer.disconnect(),
  };
}

function headersOf(raw: Record<string, unknown> | undefined): Record<string, Buffer | string | undefined> {
  const headers: Record<string, Buffer | string | undefined> = {};
  for (const [k, v] of Object.entries(raw ?? {})) {
    const one = Array.isArray(v) ? v[0] : v;
    headers[k] = Buffer.isBuffer(one) || typeof one === 'string' ? one : undefined;
  }
  return headers;
}

/** A consumer-group member that hands whole fetched batches to its handler, with manual offset control. */
export async function createBatchConsumer(kafka: Kafkajs, options: BatchConsumerOptions): Promise<BatchConsumer> {
  const consumer = kafka.consumer({
    groupId: options.groupId,
    ...(options.minBytes !== undefined ? { minBytes: options.minBytes } : {}),
    ...(options.maxWaitTimeMs !== undefined ? { maxWaitTimeInMs: options.maxWaitTimeMs } : {}),
    ...(options.maxBytesPerPartition !== undefined ? { maxBytesPerPartition: options.maxBytesPerPartition } : {}),
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.sessionTimeoutMs !== undefined ? { sessionTimeout: options.sessionTimeoutMs } : {}),
    ...(options.heartbeatIntervalMs !== undefined ? { heartbeatInterval: options.heartbeatIntervalMs } : {}),
  });
  const topic = options.topic;
  await explained(() => consumer.connect());
  await consumer.subscribe({ topic, fromBeginning: options.fromBeginning ?? true });
  // The partitions of this member's last group join. kafkajs commits any partition the broker accepts from a
  // member of the current generation, also one another member holds now.
  let assigned = new Set<number>();
  let joins = 0;
  consumer.on(consumer.events.GROUP_JOIN, (e) => {
    joins++;
    assigned = new Set(e.payload.memberAssignment[topic] ?? []);
  });
  const commit = async (partition: number, offset: string) => {
    if (!assigned.has(partition)) throw new Error(`${topic}[${partition}] is not assigned to this member`);
    await consumer.commitOffsets([{ topic, partition, offset }]);
  };
  return {
    async run(onBatch) {
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
        eachBatch: async ({ batch, heartbeat, resolveOffset, isRunning, isStale }) => {
          const joinOfBatch = joins;
          const messages: BatchMessage[] = batch.messages.map((m) => ({
            topic: batch.topic,
            partition: batch.partition,
            offset: m.offset,
            timestamp: m.timestamp,
            key: m.key,
            value: m.value,
            size: (m.key?.length ?? 0) + (m.value?.length ?? 0),
            headers: headersOf(m.headers as Record<string, unknown> | undefined),
          }));
          await onBatch(
            { topic: batch.topic, partition: batch.partition, highWatermark: batch.highWatermark, messages },
            {
              // A batch fetched before a group join belongs to the previous generation (kafkajs does not say so).
              isActive: () => isRunning() && !isStale() && joins === joinOfBatch,
              heartbeat,
              markFetched: (o) => resolveOffset(o),
            },
          );
        },
      });
    },
    commit,
    confirmAssigned: commit,
    pause: (partitions) => consumer.pause([{ topic, partitions }]),
    resume: (partitions) => consumer.resume([{ topic, partitions }]),
    seek: (partition, offset) => consumer.seek({ topic, partition, offset }),
    onAssignment(listener) {
      consumer.on(consumer.events.GROUP_JOIN, (e) => {
        listener(e.payload.memberAssignment[topic] ?? [], { isLeader: e.payload.isLeader });
      });
    },
    onCrash(listener) {
      consumer.on(consumer.events.CRASH, (e) => listener(e.payload.error, e.payload.restart));
    },
    disconnect: () => consumer.disconnect(),
  };
}

const COORDINATOR_WAIT_MS = 30_000;
/** kafkajs' names of the answers a coordinator gives while it moves or loads its groups (codes 14, 15, 16). */
const COORDINATOR_MOVING = new Set([
  'GROUP_LOAD_IN_PROGRESS',
  'GROUP_COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR_FOR_GROUP',
]);

/**
 * kafkajs' admin does not retry an offset fetch a coordinator answers while it moves or loads (a fresh broker still
 * creating its offsets topic): asked again, 0.2 s apart, for up to 30 s.
 */
async function retriedWhileCoordinatorMoves<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + COORDINATOR_WAIT_MS;
  for (;;) {
    try {
      return await call();
    } catch (err) {
      if (!COORDINATOR_MOVING.has(String((err as { type?: string }).type)) || Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/** The group's lag per partition of `topic`: high watermark minus committed offset (or minus the log start). */
export async function fetchConsumerLag(kafka: Kafkajs, groupId: string, topic: string): Promise<PartitionLag[]> {
  const admin = kafka.admin();
  await explained(() => admin.connect());
  try {
    const [ends, groups] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      retriedWhileCoordinatorMoves(() => admin.fetchOffsets({ groupId, topics: [topic] })),
    ]);
    const committed = new Map<number, string>();
    for (const p of groups.find((g) => g.topic === topic)?.partitions ?? []) committed.set(p.partition, p.offset);
    return ends
      .map((e) => {
        const c = committed.get(e.partition) ?? '-1';
        const from = Number(c) >= 0 ? Number(c) : Number(e.low);
        return { partition: e.partition, committed: c, highWatermark: e.high, lag: Math.max(0, Number(e.high) - from) };
      })
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}
