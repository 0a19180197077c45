/**
 * A Kafka topic as a witness sink: every signed checkpoint is produced to it (key `<tenant>/<log>`, value the note),
 * acknowledged by every in-sync replica, so a copy lives where database writers cannot reach. The topic keeps the
 * history (no compaction: a later forged note cannot replace an earlier one); `latestWitnessed` reads it to its end
 * and returns the newest note of each log for `tooltrail checkpoint verify --from-kafka`. Only platform/kafka is used.
 */
import type { KafkaClient, KafkaSecurity } from '../../platform/kafka/index.ts';
import type { PublishedCheckpoint, WitnessSink } from './witness.ts';

// Loaded on first use: every writer builds its recorder from this module, and the Kafka clients cost ~2 s of CPU to
// load where no Kafka witness is configured (a direct `tooltrail up`, the demo, each writer life of a test).
const kafkaModule = () => import('../../platform/kafka/index.ts');

export interface KafkaWitnessConfig {
  topic: string;
  brokers: string[];
  security?: KafkaSecurity | undefined;
}

const client = async (c: KafkaWitnessConfig, id: string): Promise<KafkaClient> =>
  (await kafkaModule()).createKafkaClient({
    brokers: c.brokers,
    clientId: id,
    ...(c.security ? { security: c.security } : {}),
    retries: 2,
    quiet: true,
  });

/** Connects per checkpoint (one a minute by default): nothing stays open between them, nothing to close. */
export function kafkaWitness(c: KafkaWitnessConfig): WitnessSink {
  let topicReady = false;
  return {
    name: `kafka:${c.topic}`,
    async publish(cp) {
      const { createIdempotentProducer, ensureTopics } = await kafkaModule();
      const kafka = await client(c, 'tooltrail-witness');
      if (!topicReady) {
        await ensureTopics(kafka, [{ topic: c.topic, numPartitions: 1 }]);
        topicReady = true;
      }
      const producer = createIdempotentProducer(kafka, { retries: 2 });
      await producer.connect();
      try {
        await producer.send(c.topic, [
          {
            key: `${cp.tenant}/${cp.log}`,
            value: Buffer.from(cp.note, 'utf8'),
            headers: { 'tooltrail-tenant': cp.tenant, 'tooltrail-log': cp.log, 'tooltrail-size': String(cp.size) },
          },
        ]);
      } finally {
        await producer.disconnect();
      }
    },
  };
}

export class KafkaWitnessError extends Error {}

const header = (v: Buffer | string | undefined) => (v === undefined ? '' : v.toString());

/** Reads the topic to its current end (platform/kafka `readTopic`); the newest note of each (tenant, log), by offset. */
export async function latestWitnessed(
  c: KafkaWitnessConfig,
  timeoutMs = 30_000,
): Promise<Map<string, PublishedCheckpoint>> {
  const latest = new Map<string, PublishedCheckpoint>();
  try {
    const { readTopic } = await kafkaModule();
    await readTopic(
      await client(c, 'tooltrail-witness-reader'),
      c.topic,
      (m) => {
        const tenant = header(m.headers['tooltrail-tenant']);
        const log = header(m.headers['tooltrail-log']);
        const size = Number(header(m.headers['tooltrail-size']));
        if (tenant && log && m.value) latest.set(`${tenant}/${log}`, { tenant, log, size, note: m.value.toString() });
      },
      { timeoutMs },
    );
  } catch (err) {
    throw new KafkaWitnessError(`cannot read witness topic ${c.topic}: ${(err as Error).message}`);
  }
  return latest;
}
