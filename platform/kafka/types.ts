/**
 * The Kafka interface every caller sees: no client library's type crosses it. The client (platform/kafka/platformatic/)
 * implements `KafkaClient`; client.ts loads it. Another client is one folder beside it and one line in client.ts.
 */
import type { KafkaSecurity } from './security.ts';

export const KAFKA_CLIENTS = ['platformatic'] as const;
export type KafkaClientKind = (typeof KAFKA_CLIENTS)[number];

/** Record batch codecs a producer may use (every consumer here reads all of them). */
export const KAFKA_COMPRESSIONS = ['none', 'gzip', 'zstd', 'lz4'] as const;
export type KafkaCompression = (typeof KAFKA_COMPRESSIONS)[number];

export interface KafkaClientOptions {
  brokers: string[];
  clientId: string;
  /** Which client library talks to Kafka; absent: TOOLTRAIL_KAFKA_CLIENT, else the default (client.ts). */
  client?: KafkaClientKind;
  /** TLS and SASL (platform/kafka/security.ts); absent: plaintext, no authentication. */
  security?: KafkaSecurity;
  /** Connection timeout per broker; kept short so a down broker is reported quickly. */
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Retries of the client itself; callers that implement their own backpressure set 0. */
  retries?: number;
  /** Log the client's errors to stderr (default) or stay silent (tests that stop brokers on purpose). */
  quiet?: boolean;
}

// ------------------------------------------------------------------------------------------------ admin

export interface TopicSpec {
  topic: string;
  numPartitions?: number;
  replicationFactor?: number;
  configEntries?: { name: string; value: string }[];
}

export interface PartitionState {
  partition: number;
  leader: number;
  replicas: number[];
  isr: number[];
}

/** A consumer group as its coordinator describes it. */
export interface GroupDescription {
  /** Kafka's group state: STABLE once every member has its assignment; DEAD or EMPTY without members. */
  state: string;
  members: number;
}

export interface PartitionLag {
  partition: number;
  /** Committed offset of the group (-1: nothing committed yet). */
  committed: string;
  highWatermark: string;
  lag: number;
}

// ------------------------------------------------------------------------------------------------ producer

export interface OutgoingMessage {
  key: Buffer | string | null;
  value: Buffer;
  headers?: Record<string, string | Buffer>;
}

export interface Producer {
  connect(): Promise<void>;
  /** Resolves only once every message is acknowledged by all in-sync replicas. */
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  disconnect(): Promise<void>;
}

export interface ProducerOptions {
  /** Batch compression. */
  compression?: KafkaCompression;
  /**
   * Retries of one send inside the client (at least 1), 0.1 s doubling to 1 s apart. They keep the producer id and
   * sequence numbers, so a retry of a batch the broker already appended is dropped by the broker; a caller's own
   * re-send after the producer gave up is not (collector/sinks/kafka-sink.ts).
   */
  retries?: number;
  /** How long the broker may wait for the in-sync replicas before it answers. */
  ackTimeoutMs?: number;
}

// ------------------------------------------------------------------------------------------------ consumers

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
   * Starts calling `onBatch` for each fetched batch (one at a time per partition) and resolves once started.
   * Nothing is committed automatically and offsets are not advanced unless the handler calls `markFetched`: a batch
   * left unmarked is fetched again.
   */
  run(onBatch: (batch: FetchedBatch, control: BatchControl) => Promise<void>): Promise<void>;
  /** Commits `nextOffset` (the offset of the next message to read) for the partition; fails after a rebalance. */
  commit(partition: number, nextOffset: string): Promise<void>;
  /**
   * Asks the group coordinator whether this member still holds `partition` in the group's current generation, by
   * committing `nextOffset` again (every message before it is stored). Fails when the partition is not assigned
   * here, or when the group has formed a generation without this member: a member that missed its heartbeats does
   * not know it was dropped until it asks.
   */
  confirmAssigned(partition: number, nextOffset: string): Promise<void>;
  pause(partitions: number[]): void;
  resume(partitions: number[]): void;
  /** The next fetch of `partition` starts at `offset`; the batch in progress becomes inactive. */
  seek(partition: number, offset: string): void;
  /**
   * Called with this member's partitions after every group join (a rebalance); one member per join is the leader.
   * After a join every partition is fetched again from its committed offset.
   */
  onAssignment(listener: (partitions: number[], join?: { isLeader: boolean }) => void): void;
  /** Called when the consumer failed (it restarts itself when `restart` is true). */
  onCrash(listener: (error: Error, restart: boolean) => void): void;
  /** Stops fetching, waits for the batch in progress to return, leaves the group. */
  disconnect(): Promise<void>;
}

// ------------------------------------------------------------------------------------------------ the client

/** One connection configuration to a cluster; each factory opens its own connections. */
export interface KafkaClient {
  readonly kind: KafkaClientKind;
  /** An idempotent producer that waits for acks from all in-sync replicas (murmur2 key partitioning). */
  createIdempotentProducer(options?: ProducerOptions): Producer;
  /** A consumer-group member reading `topic` from the beginning, committing after each message. */
  createSimpleConsumer(groupId: string, topic: string): Promise<SimpleConsumer>;
  /** A consumer-group member that hands whole fetched batches to its handler, with manual offset control. */
  createBatchConsumer(options: BatchConsumerOptions): Promise<BatchConsumer>;
  /** Creates the topics that do not exist yet; existing ones are left as they are. */
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /** The names of the cluster's topics. */
  listTopics(): Promise<string[]>;
  deleteTopics(topics: string[]): Promise<void>;
  /** The cluster id and broker count, or an error naming why the cluster is unreachable. */
  describeCluster(): Promise<{ clusterId: string; brokers: number }>;
  /** Leader, replicas and in-sync replicas of each partition of `topic`, from fresh metadata. */
  partitionStates(topic: string): Promise<PartitionState[]>;
  /** The group's lag per partition of `topic`: high watermark minus committed offset (or minus the log start). */
  fetchConsumerLag(groupId: string, topic: string): Promise<PartitionLag[]>;
  /** The group's state and member count (DEAD, 0 members: no such group). */
  describeGroup(groupId: string): Promise<GroupDescription>;
}
