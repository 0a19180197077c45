import { Producer as PlatformaticProducer, ProduceAcks } from '@platformatic/kafka';
import { explained } from '../errors.ts';
import { keyHash } from '../murmur2.ts';
import type { KafkaClientOptions, OutgoingMessage, Producer, ProducerOptions } from '../types.ts';
import { absorbLateConnectionErrors, baseOptionsOf, saslMechanismOf } from './options.ts';

/** Java's default partitioner on a key; the library reduces it modulo the topic's partitions. */
const javaPartitioner = (_message: unknown, key?: Buffer): number => (key ? keyHash(key) : 0);

const asBuffer = (v: Buffer | string): Buffer => (typeof v === 'string' ? Buffer.from(v) : v);

/**
 * Header names and short string header values as bytes, made once each: the names are a handful, the short values
 * the collector sends are tenant names (at most 64 characters; the map is emptied when it fills). The library
 * copies them into the record and never writes them.
 */
const TEXT_BYTES_MAX = 4_096;
const SHORT_TEXT = 64;
const textBytes = new Map<string, Buffer>();
function bytesOfText(s: string): Buffer {
  if (s.length > SHORT_TEXT) return Buffer.from(s);
  let b = textBytes.get(s);
  if (b === undefined) {
    if (textBytes.size >= TEXT_BYTES_MAX) textBytes.clear();
    b = Buffer.from(s);
    textBytes.set(s, b);
  }
  return b;
}

function headersOf(headers: Record<string, string | Buffer> | undefined): Map<Buffer, Buffer> | undefined {
  if (!headers) return undefined;
  const out = new Map<Buffer, Buffer>();
  for (const k in headers) {
    const v = headers[k] as string | Buffer;
    out.set(bytesOfText(k), typeof v === 'string' ? bytesOfText(v) : v);
  }
  return out;
}

/** 0.1 s doubling to 1 s: 10 retries span ~7.5 s, a broker restart (see collector/sinks/kafka-sink.ts). */
const retryDelayOf = (_client: unknown, _operation: string, attempt: number) =>
  Math.min(1_000, 100 * 2 ** (attempt - 1));

/**
 * An idempotent producer, acks from all in-sync replicas. The partitioner is Java's (murmur2 & 0x7fffffff): a key lands
 * on the partition the Java client and librdkafka's murmur2 pick (the library's default partitioner does not); ours
 * (../murmur2.ts) computes the library's `compatibilityPartitioner` in 32-bit integers instead of BigInts.
 */
export function createIdempotentProducer(client: KafkaClientOptions, options: ProducerOptions = {}): Producer {
  const base = baseOptionsOf(client);
  const producer = new PlatformaticProducer({
    ...base,
    idempotent: true,
    acks: ProduceAcks.ALL,
    compression: options.compression ?? 'none',
    partitioner: javaPartitioner,
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
