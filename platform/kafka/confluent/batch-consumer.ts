/**
 * The batch consumer on librdkafka, through the library's KafkaJS-compatible consumer: librdkafka joins the group,
 * heartbeats and fetches on its own threads; batches come to the handler per partition, a batch's messages not
 * marked fetched are fetched again (the library seeks back to the first unmarked one), and every position restarts
 * from the committed offsets after a group join. Group joins are told through librdkafka's rebalance callback.
 */
import { explained } from '../errors.ts';
import type { BatchConsumer, BatchConsumerOptions, BatchMessage, FetchedBatch, KafkaClientOptions } from '../types.ts';
import { KafkaJS } from './library.ts';
import { baseProperties, saslMechanismOf } from './options.ts';

/** librdkafka's rebalance events (rd_kafka_resp_err_t). */
const ASSIGN_PARTITIONS = -175;

type Headers = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

function headersOf(raw: Headers | undefined): Record<string, Buffer | string | undefined> {
  const headers: Record<string, Buffer | string | undefined> = {};
  for (const [k, v] of Object.entries(raw ?? {})) headers[k] = Array.isArray(v) ? v[0] : v;
  return headers;
}

export async function createBatchConsumer(
  client: KafkaClientOptions,
  options: BatchConsumerOptions,
): Promise<BatchConsumer> {
  const topic = options.topic;
  let assigned = new Set<number>();
  let joins = 0;
  const assignmentListeners: ((partitions: number[], join?: { isLeader: boolean }) => void)[] = [];
  const sessionTimeout = options.sessionTimeoutMs ?? 30_000;
  const consumer = new KafkaJS.Kafka({}).consumer({
    ...baseProperties(client, '-consumer'),
    'group.id': options.groupId,
    'enable.auto.commit': false,
    'auto.offset.reset': (options.fromBeginning ?? true) ? 'earliest' : 'latest',
    'session.timeout.ms': sessionTimeout,
    'heartbeat.interval.ms': options.heartbeatIntervalMs ?? Math.min(3_000, Math.floor(sessionTimeout / 3)),
    'partition.assignment.strategy': 'range',
    'fetch.min.bytes': options.minBytes ?? 1,
    'fetch.wait.max.ms': options.maxWaitTimeMs ?? 5_000,
    'max.partition.fetch.bytes': options.maxBytesPerPartition ?? 1024 * 1024,
    'fetch.max.bytes': options.maxBytes ?? 10 * 1024 * 1024,
    // A batch holds what one fetch brought (the ingest sizes its inserts by rows and bytes, not by this).
    'js.consumer.max.batch.size': -1,
    rebalance_cb: (err: { code: number }, assignment: { topic: string; partition: number }[]) => {
      if (err.code !== ASSIGN_PARTITIONS) {
        // Revoked: nothing is held until the next assignment.
        assigned = new Set();
        return;
      }
      joins++;
      const partitions = assignment.filter((a) => a.topic === topic).map((a) => a.partition);
      assigned = new Set(partitions);
      const sorted = [...partitions].sort((a, b) => a - b);
      for (const l of assignmentListeners) {
        try {
          // librdkafka does not tell a member whether it led the join.
          l(sorted);
        } catch {
          // a listener must not break the rebalance
        }
      }
    },
  });
  const mechanism = saslMechanismOf(client);
  await explained(() => consumer.connect(), mechanism);
  await consumer.subscribe({ topics: [topic] });
  const commit = async (partition: number, nextOffset: string) => {
    if (!assigned.has(partition)) throw new Error(`${topic}[${partition}] is not assigned to this member`);
    await consumer.commitOffsets([{ topic, partition, offset: nextOffset }]);
  };
  return {
    async run(onBatch) {
      await consumer.run({
        eachBatchAutoResolve: false,
        partitionsConsumedConcurrently: options.partitionsConcurrently ?? 1,
        eachBatch: async ({ batch, resolveOffset, isRunning, isStale }) => {
          const joinOfBatch = joins;
          const messages: BatchMessage[] = batch.messages.map((m) => ({
            topic: batch.topic,
            partition: batch.partition,
            offset: m.offset,
            timestamp: m.timestamp,
            key: m.key,
            value: m.value,
            size: (m.key?.length ?? 0) + (m.value?.length ?? 0),
            headers: headersOf(m.headers as Headers | undefined),
          }));
          const fetched: FetchedBatch = {
            topic: batch.topic,
            partition: batch.partition,
            highWatermark: batch.highWatermark,
            messages,
          };
          await onBatch(fetched, {
            isActive: () => isRunning() && !isStale() && joins === joinOfBatch && assigned.has(batch.partition),
            // librdkafka heartbeats on its own thread: a long batch does not cost the membership.
            heartbeat: async () => {},
            markFetched: (o) => resolveOffset(o),
          });
        },
      });
    },
    commit,
    confirmAssigned: commit,
    pause: (partitions) => consumer.pause([{ topic, partitions }]),
    resume: (partitions) => consumer.resume([{ topic, partitions }]),
    seek: (partition, offset) => consumer.seek({ topic, partition, offset }),
    onAssignment(listener) {
      assignmentListeners.push(listener);
    },
    // The library reports the failures it recovers from through its logger; none stops the consumer.
    onCrash() {},
    disconnect: () => consumer.disconnect(),
  };
}
