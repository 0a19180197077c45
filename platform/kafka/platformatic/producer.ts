import { compatibilityPartitioner, Producer as PlatformaticProducer, ProduceAcks } from '@platformatic/kafka';
import { explained } from '../errors.ts';
import type { KafkaClientOptions, OutgoingMessage, Producer, ProducerOptions } from '../types.ts';
import { absorbLateConnectionErrors, baseOptionsOf, saslMechanismOf } from './options.ts';

const asBuffer = (v: Buffer | string): Buffer => (typeof v === 'string' ? Buffer.from(v) : v);

function headersOf(headers: Record<string, string | Buffer> | undefined): Map<Buffer, Buffer> | undefined {
  if (!headers) return undefined;
  const out = new Map<Buffer, Buffer>();
  for (const [k, v] of Object.entries(headers)) out.set(Buffer.from(k), asBuffer(v));
  return out;
}

/** 0.1 s doubling to 1 s: 10 retries span ~7.5 s, a broker restart (see collector/sinks/kafka-sink.ts). */
const retryDelayOf = (_client: unknown, _operation: string, attempt: number) =>
  Math.min(1_000, 100 * 2 ** (attempt - 1));

/**
 * An idempotent producer, acks from all in-sync replicas. The compatibility partitioner is Java's (murmur2 & 0x7fffffff):
 * a key lands on the partition the Java client and librdkafka's murmur2 pick (the library's default partitioner does not).
 */
export function createIdempotentProducer(client: KafkaClientOptions, options: ProducerOptions = {}): Producer {
  const base = baseOptionsOf(client);
  const producer = new PlatformaticProducer({
    ...base,
    idempotent: true,
    acks: ProduceAcks.ALL,
    compression: options.compression ?? 'none',
    partitioner: compatibilityPartitioner,
    retries: Math.max(2, options.retries ?? 5),
    retryDelay: retryDelayOf,
    ...(options.ackTimeoutMs !== undefined ? { timeout: options.ackTimeoutMs } : {}),
  });
  absorbLateConnectionErrors(producer);
  const mechanism = saslMechanismOf(client);
  return {
    // The library connects on first use; connecting here checks the brokers, TLS and SASL up front.
    connect: () => explained(async () => void (await producer.metadata({ topics: [] })), mechanism),
    send: (topic, messages: OutgoingMessage[]) =>
      explained(async () => {
        await producer.send({
          messages: messages.map((m) => {
            const headers = headersOf(m.headers);
            return {
              topic,
              value: m.value,
              ...(m.key !== null ? { key: asBuffer(m.key) } : {}),
              ...(headers ? { headers } : {}),
            };
          }),
        });
      }, mechanism),
    disconnect: () => producer.close(),
  };
}
