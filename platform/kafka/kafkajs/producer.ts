import { createRequire } from 'node:module';
import { promisify } from 'node:util';
import { gzip, unzip } from 'node:zlib';
import kafkajs from 'kafkajs';
import { COMPRESSION_LEVELS } from '../compression.ts';
import { explained, explainKafkaError } from '../errors.ts';
import type { OutgoingMessage, Producer, ProducerOptions } from '../types.ts';
import type { Kafkajs } from './client.ts';
import { createKeyPartitioner } from './partitioner.ts';
import { installRecordEncoder } from './record.ts';
import { unansweredMessages } from './unanswered.ts';

const { CompressionCodecs, CompressionTypes } = kafkajs;

/**
 * kafkajs (2.2.4, pinned) grows its protocol encoders with zero-filled buffers: each record of a produce request
 * (a ~4 KiB OTLP message) and each batch is allocated twice and zeroed, which the collector paid in allocation,
 * memsets and young-generation GCs forced by external memory. Every encoder write fills the bytes it advances over
 * and only bytes [0, offset) are ever read, so growing with uninitialised memory changes nothing else.
 */
interface KafkajsEncoder {
  buf: Buffer;
  offset: number;
  ensureAvailable(length: number): void;
  writeEncoderArray(value: KafkajsEncoder[]): KafkajsEncoder;
}
const Encoder = createRequire(import.meta.url)('kafkajs/src/protocol/encoder') as {
  prototype: KafkajsEncoder;
  nextPowerOfTwo(n: number): number;
};
installRecordEncoder();
/** Appends encoders (a batch's records) after one growth to their total size, not one doubling after another. */
Encoder.prototype.writeEncoderArray = function writeEncoderArray(this: KafkajsEncoder, value: KafkajsEncoder[]) {
  if (!Array.isArray(value) || value.some((v) => v == null || !Buffer.isBuffer(v.buf))) {
    throw new Error('all values should be an instance of Encoder[]');
  }
  let total = 0;
  for (const v of value) total += v.offset;
  this.ensureAvailable(total);
  for (const v of value) {
    v.buf.copy(this.buf, this.offset, 0, v.offset);
    this.offset += v.offset;
  }
  return this;
};
Encoder.prototype.ensureAvailable = function ensureAvailable(this: KafkajsEncoder, length: number) {
  if (this.offset + length > this.buf.length) {
    const grown = Buffer.allocUnsafe(Encoder.nextPowerOfTwo(this.offset + length));
    this.buf.copy(grown, 0, 0, this.offset);
    this.buf = grown;
  }
};

const gzipAsync = promisify(gzip);
const unzipAsync = promisify(unzip);
/**
 * kafkajs' built-in gzip codec uses zlib's defaults: level 6 and 16 KiB chunks, i.e. one main-thread callback per
 * 16 KiB of a multi-megabyte batch. Measured on 512-span OTLP batches: level 1 compresses 14x instead of 15x at less
 * than half the CPU, and chunks sized to the batch (below) remove most callbacks. Same gzip format: every consumer
 * reads it unchanged.
 */
const GZIP_LEVEL = COMPRESSION_LEVELS.kafkajs.gzip;
/**
 * zlib allocates one output buffer of `chunkSize` per call: a fixed 1 MiB for batches whose compressed size is a
 * few tens of KiB made most of the collector's external memory churn (and the GCs it forces). A quarter of the
 * input holds the output of one call for this data (~7x), else zlib continues in further chunks.
 */
const gzipOptions = (input: number) => ({
  level: GZIP_LEVEL,
  chunkSize: Math.min(1024 * 1024, Math.max(16 * 1024, Encoder.nextPowerOfTwo(Math.ceil(input / 4)))),
});
CompressionCodecs[CompressionTypes.GZIP] = () => ({
  compress: (encoder: { buffer: Buffer }) => {
    const input = encoder.buffer;
    return gzipAsync(input, gzipOptions(input.length));
  },
  decompress: (buffer: Buffer) => unzipAsync(buffer),
});

/** Rounds of sending again the messages a kafkajs send resolved without writing (unanswered.ts). */
const UNANSWERED_ROUNDS = 5;

/** A send that still had messages no partition leader acknowledged after every round: nothing is acknowledged. */
export class KafkaUnwrittenError extends Error {
  override name = 'KafkaUnwrittenError';
}

/**
 * An idempotent producer that waits for acks from all in-sync replicas. The partitioner hashes the key with murmur2
 * like the Java client, so a key lands on the same partition whichever client produced it (partitioner.ts).
 *
 * Two kafkajs defects lose acknowledged messages when a leader moves; both are closed here:
 * - a send can resolve without having written some partitions (unanswered.ts): those messages are sent again by the
 *   same producer (the broker recognises, by sequence number, a batch the old leader had written after all);
 * - after a failed send kafkajs hands the same sequence numbers to the next messages, although the broker may have
 *   written the failed batch: it then answers the next batch as a duplicate of that one, without writing it. So
 *   after a failure the next send goes through a fresh kafkajs producer (a new producer id, sequences from 0).
 */
export function createIdempotentProducer(kafka: Kafkajs, options: ProducerOptions = {}): Producer {
  // The partition kafkajs routed each message to, recorded by the partitioner (called on every attempt).
  const routed = new WeakMap<object, number>();
  const partitioner = () => {
    const choose = createKeyPartitioner();
    return (args: Parameters<ReturnType<typeof createKeyPartitioner>>[0]) => {
      const partition = choose(args);
      routed.set(args.message, partition);
      return partition;
    };
  };
  const make = () =>
    kafka.producer({
      idempotent: true,
      maxInFlightRequests: 1,
      createPartitioner: partitioner,
      ...(options.retries !== undefined
        ? { retry: { retries: Math.max(1, options.retries), initialRetryTime: 100, maxRetryTime: 1_000 } }
        : {}),
    });
  let producer = make();
  let failed = false;
  const compression = options.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None;
  const sendOnce = (topic: string, messages: OutgoingMessage[]) =>
    producer.send({
      topic,
      acks: -1,
      compression,
      messages,
      ...(options.ackTimeoutMs !== undefined ? { timeout: options.ackTimeoutMs } : {}),
    });
  const replace = async () => {
    const old = producer;
    producer = make();
    failed = false;
    await old.disconnect().catch(() => {});
    await producer.connect();
  };
  return {
    connect: () => explained(() => producer.connect()),
    async send(topic, messages) {
      try {
        if (failed) await replace();
        let pending = messages;
        for (let round = 0; round <= UNANSWERED_ROUNDS; round++) {
          const answers = await sendOnce(topic, pending);
          pending = unansweredMessages(topic, pending, (m) => routed.get(m), answers);
          if (pending.length === 0) return;
        }
        throw new KafkaUnwrittenError(
          `Kafka did not acknowledge ${pending.length} message(s) of ${topic} after ${UNANSWERED_ROUNDS + 1} sends (partitions ${[...new Set(pending.map((m) => routed.get(m)))].join(',')})`,
        );
      } catch (err) {
        failed = true;
        throw explainKafkaError(err);
      }
    },
    disconnect: () => producer.disconnect(),
  };
}
