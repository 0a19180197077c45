import type { KafkaClient } from './client.ts';
import { explained } from './errors.ts';

export interface IncomingMessage {
  topic: string;
  partition: number;
  offset: string;
  key: Buffer | null;
  value: Buffer | null;
  headers: Record<string, Buffer | string | undefined>;
}

export interface SimpleConsumer {
  /** Calls `onMessage` for each message; the offset is committed after the handler resolves. */
  run(onMessage: (m: IncomingMessage) => Promise<void>): Promise<void>;
  disconnect(): Promise<void>;
}

/** A consumer-group member reading `topic` from the beginning. The ingest builds its own batch consumer. */
export async function createSimpleConsumer(
  kafka: KafkaClient,
  groupId: string,
  topic: string,
): Promise<SimpleConsumer> {
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

// ------------------------------------------------------------------------------------------------ batch consumer

/** A message of a fetched batch, with its Kafka timestamp (ms, as a decimal string). */
export interface BatchMessage extends IncomingMessage {
  timestamp: string;
  /** Wire size of key + value, for byte-based batch limits. */
  size: number;
}

export interface FetchedBatch {
  topic: string;
  partition: number;
  /** Offset after the partition's last message in the log (lag = highWatermark - committed). */
  highWatermark: string;
  messages: BatchMessage[];
}

export interface BatchControl {
  /** False once the consumer is stopping or this partition was sought/revoked: stop working on the batch. */
  isActive(): boolean;
  /** Keeps the group membership alive during long work inside one batch. */
  heartbeat(): Promise<void>;
  /**
   * Marks `offset` as fetched: the next fetch of this partition starts after it. Does NOT commit (commits are
   * explicit, see `commit`).
   */
  markFetched(offset: string): void;
}

export interface BatchConsumerOptions {
  groupId: string;
  topic: string;
  /** Start from the earliest offset when the group has no committed offset (default true). */
  fromBeginning?: boolean;
  /** The broker answers a fetch once it has this many bytes, or after `maxWaitTimeMs` (the linger). */
  minBytes?: number;
  maxWaitTimeMs?: number;
  /** Upper bound of one fetch per partition, and overall. */
  maxBytesPerPartition?: number;
  maxBytes?: number;
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Batches of this many partitions are handled at once (each partition's own batches stay in order). */
  partitionsConcurrently?: number;
}

export interface BatchConsumer {
  /**
   * Calls `onBatch` for each fetched batch (one at a time per partition). Nothing is committed automatically and offsets are not
   * advanced unless the handler calls `markFetched`: a batch left unmarked is fetched again.
   */
  run(onBatch: (batch: FetchedBatch, control: BatchControl) => Promise<void>): Promise<void>;
  /** Commits `nextOffset` (the offset of the next message to read) for the partition; fails after a rebalance. */
  commit(partition: number, nextOffset: string): Promise<void>;
  pause(partitions: number[]): void;
  resume(partitions: number[]): void;
  /** The next fetch of `partition` starts at `offset`; the batch in progress becomes inactive. */
  seek(partition: number, offset: string): void;
  /** Called with this member's partitions after every group join (a rebalance); one member per join is the leader. */
  onAssignment(listener: (partitions: number[], join?: { isLeader: boolean }) => void): void;
  /** Called when kafkajs crashed the consumer (it restarts itself when `restart` is true). */
  onCrash(listener: (error: Error, restart: boolean) => void): void;
  /** Stops fetching, waits for the batch in progress to return, leaves the group. */
  disconnect(): Promise<void>;
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
export async function createBatchConsumer(kafka: KafkaClient, options: BatchConsumerOptions): Promise<BatchConsumer> {
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
  return {
    async run(onBatch) {
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
        eachBatch: async ({ batch, heartbeat, resolveOffset, isRunning, isStale }) => {
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
            { isActive: () => isRunning() && !isStale(), heartbeat, markFetched: (o) => resolveOffset(o) },
          );
        },
      });
    },
    async commit(partition, nextOffset) {
      await consumer.commitOffsets([{ topic, partition, offset: nextOffset }]);
    },
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

export interface PartitionLag {
  partition: number;
  /** Committed offset of the group (-1: nothing committed yet). */
  committed: string;
  highWatermark: string;
  lag: number;
}

/** The group's lag per partition of `topic`: high watermark minus committed offset (or minus the log start). */
export async function fetchConsumerLag(kafka: KafkaClient, groupId: string, topic: string): Promise<PartitionLag[]> {
  const admin = kafka.admin();
  await explained(() => admin.connect());
  try {
    const [ends, groups] = await Promise.all([
      admin.fetchTopicOffsets(topic),
      admin.fetchOffsets({ groupId, topics: [topic] }),
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
