/**
 * The Kafka sink: each request's spans become one message per trace (key = trace id hex, value = OTLP protobuf
 * ExportTraceServiceRequest, headers `tooltrail-tenant` and `tooltrail-message-id`: the id by which the ingest
 * recognises the same message re-sent by a client, platform/kafka/message-id.ts), produced by an idempotent producer with acks from all
 * in-sync replicas. A write resolves only when Kafka acknowledged every message of its request.
 *
 * The producer sends each `send()` as its own produce request and has no linger, and an idempotent producer has one
 * produce request in flight per broker; so the sink batches itself over `kafka.producers` producers: while they are
 * all busy, the writes that arrive wait and leave together in the next send (no added latency when idle).
 * A failure, or no acknowledgement within `sendTimeoutMs`, opens a breaker for `unavailableRetryAfterSeconds` during
 * which writes fail at once with SinkUnavailableError (HTTP 503 + Retry-After) instead of piling up, then the next
 * batch probes Kafka again. A write still queued at its timeout is refused and never sent; a write already handed to a
 * producer is answered by that send's outcome only (bounded by the producer's request timeout and retries): Kafka may
 * still store it, and a 503 would make the client send it again, stored twice. After a failed send the producer is
 * replaced, so its next id and sequence start clean.
 */
import {
  createIdempotentProducer,
  createKafkaClient,
  describeCluster,
  ensureTopics,
  type KafkaClient,
  MESSAGE_ID_HEADER,
  messageIdBytes,
  type OutgoingMessage,
  type Producer,
} from '../../platform/kafka/index.ts';
import type { ExportTraceServiceRequest } from '../../platform/otlp/index.ts';
import type { CollectorConfig } from '../config.ts';
import { type SinkContext, SinkUnavailableError, type SpanSink } from '../sink.ts';
import { splitByTrace, type TraceMessage } from '../split-by-trace.ts';

export const TENANT_HEADER = 'tooltrail-tenant';
/** A readiness answer is reused this long, so probes every second do not each open an admin connection. */
const READY_CACHE_MS = 2_000;

export interface KafkaSinkObserver {
  /** One produce request finished (ok or not) after `seconds`, carrying `messages` messages. */
  onSend?(seconds: number, messages: number, ok: boolean): void;
  /** The breaker changed state (`down`: writes fail fast). */
  onStateChange?(state: 'up' | 'down', reason: string): void;
}

export interface KafkaSinkOptions {
  config: CollectorConfig['kafka'];
  observer?: KafkaSinkObserver;
  /** Silence the Kafka client's own error log (tests that stop a broker on purpose). */
  quiet?: boolean;
  /** Unit tests pass fakes; by default a client of `config.client` is built from `config`. */
  createProducer?: () => Producer;
  probe?: () => Promise<boolean>;
}

interface Pending {
  messages: OutgoingMessage[];
  bytes: number;
  settled: boolean;
  /** Handed to a producer: only the send's outcome may answer it. */
  sent: boolean;
  timer: NodeJS.Timeout;
  resolve(): void;
  reject(err: Error): void;
}

export interface KafkaSpanSink extends SpanSink {
  writeEncoded(messages: TraceMessage[], context: SinkContext): Promise<void>;
  /** Creates the topic when it is missing (`kafka.createTopic`). */
  ensureTopic(): Promise<void>;
}

export function createKafkaSink(options: KafkaSinkOptions): KafkaSpanSink {
  const cfg = options.config;
  const observer = options.observer ?? {};
  const clientOptions = {
    brokers: cfg.brokers,
    clientId: cfg.clientId,
    security: { tls: cfg.tls, sasl: cfg.sasl },
    client: cfg.client,
    connectionTimeoutMs: 1_000,
    requestTimeoutMs: Math.max(cfg.sendTimeoutMs, 1_000),
    retries: 2,
    quiet: options.quiet ?? false,
  };
  // The producer retries a failed send with the same producer id and sequence numbers, so the broker drops a batch it
  // already appended (idempotence). 10 retries at 0.1-1 s backoff span ~7.5 s of refused connections: a broker
  // restart. Giving up sooner answers 503 for a batch the broker may have appended before it stopped, and the
  // client's retry (a new producer after `reset`) stores it twice: the chaos soak caught exactly that.
  const producerOptions = { compression: cfg.compression, retries: 10 };
  let client: KafkaClient | undefined;
  const kafkaClient = () => {
    client ??= createKafkaClient(clientOptions);
    return client;
  };
  const newProducer = options.createProducer ?? (() => createIdempotentProducer(kafkaClient(), producerOptions));
  const probe =
    options.probe ??
    (async () => {
      const probeClient = createKafkaClient({
        brokers: cfg.brokers,
        clientId: `${cfg.clientId}-readiness`,
        security: { tls: cfg.tls, sasl: cfg.sasl },
        client: cfg.client,
        connectionTimeoutMs: 1_000,
        requestTimeoutMs: 2_000,
        retries: 0,
        quiet: true,
      });
      try {
        return (await describeCluster(probeClient)).brokers > 0;
      } catch {
        return false;
      }
    });

  /** One idempotent producer per slot; a producer holds one produce request per broker at a time. */
  interface Slot {
    producer?: Producer;
    connected?: Promise<void>;
    busy: boolean;
  }
  const slots: Slot[] = Array.from({ length: cfg.producers }, () => ({ busy: false }));
  const queue: Pending[] = [];
  let closed = false;
  let downUntil = 0;
  let lastOkAt = 0;
  let readyCache: { at: number; value: Promise<boolean> } | undefined;
  const retryAfter = cfg.unavailableRetryAfterSeconds;

  const markDown = (reason: string) => {
    const wasUp = Date.now() >= downUntil;
    downUntil = Date.now() + retryAfter * 1_000;
    readyCache = undefined;
    if (wasUp) observer.onStateChange?.('down', reason);
  };
  const markUp = () => {
    lastOkAt = Date.now();
    if (downUntil !== 0) {
      downUntil = 0;
      observer.onStateChange?.('up', 'a send was acknowledged');
    }
  };

  const connect = (slot: Slot): Promise<Producer> => {
    if (!slot.producer || !slot.connected) {
      const p = newProducer();
      slot.producer = p;
      slot.connected = p.connect().catch((err: unknown) => {
        if (slot.producer === p) {
          slot.producer = undefined;
          slot.connected = undefined;
        }
        p.disconnect().catch(() => {});
        throw err;
      });
    }
    const p = slot.producer;
    return slot.connected.then(() => p);
  };

  /** Drops a slot's producer after a failure; its next batch connects a fresh one (new producer id). */
  const reset = (slot: Slot) => {
    const old = slot.producer;
    slot.producer = undefined;
    slot.connected = undefined;
    old?.disconnect().catch(() => {});
  };

  const takeBatch = (): Pending[] => {
    const batch: Pending[] = [];
    let bytes = 0;
    while (queue.length > 0) {
      const next = queue[0] as Pending;
      // Writes that timed out while queued were answered 503 already: they must not reach Kafka.
      if (next.settled) {
        queue.shift();
        continue;
      }
      if (batch.length > 0 && bytes + next.bytes > cfg.batchMaxBytes) break;
      next.sent = true;
      batch.push(next);
      bytes += next.bytes;
      queue.shift();
    }
    return batch;
  };

  const settle = (batch: Pending[], err?: Error) => {
    for (const p of batch) {
      clearTimeout(p.timer);
      if (p.settled) continue;
      p.settled = true;
      if (err) p.reject(err);
      else p.resolve();
    }
  };

  const pump = () => {
    if (closed) return;
    for (const slot of slots) {
      if (slot.busy) continue;
      const batch = takeBatch();
      if (batch.length === 0) return;
      const messages = batch.length === 1 ? (batch[0] as Pending).messages : batch.flatMap((b) => b.messages);
      slot.busy = true;
      const started = performance.now();
      connect(slot)
        .then((producer) => producer.send(cfg.topic, messages))
        .then(
          () => {
            observer.onSend?.((performance.now() - started) / 1_000, messages.length, true);
            markUp();
            settle(batch);
          },
          (err: unknown) => {
            observer.onSend?.((performance.now() - started) / 1_000, messages.length, false);
            const reason = err instanceof Error ? err.message : String(err);
            markDown(reason);
            reset(slot);
            settle(batch, new SinkUnavailableError(`Kafka did not acknowledge the spans: ${reason}`, retryAfter));
          },
        )
        .finally(() => {
          slot.busy = false;
          pump();
        });
    }
  };

  const writeEncoded = (traceMessages: TraceMessage[], context: SinkContext): Promise<void> => {
    if (closed) return Promise.reject(new SinkUnavailableError('the collector is shutting down', retryAfter));
    if (Date.now() < downUntil) {
      return Promise.reject(new SinkUnavailableError('Kafka is unavailable (recent sends failed)', retryAfter));
    }
    let bytes = 0;
    const messages = traceMessages.map((m) => {
      bytes += m.value.length + m.key.length;
      const headers = { [TENANT_HEADER]: context.tenant, [MESSAGE_ID_HEADER]: messageIdBytes(m.value) };
      return { key: m.key, value: m.value, headers };
    });
    if (messages.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const entry: Pending = {
        messages,
        bytes,
        settled: false,
        sent: false,
        resolve,
        reject,
        timer: setTimeout(() => {
          if (entry.settled) return;
          markDown(`no acknowledgement within ${cfg.sendTimeoutMs} ms`);
          if (entry.sent) return;
          entry.settled = true;
          reject(
            new SinkUnavailableError(`Kafka did not acknowledge the spans within ${cfg.sendTimeoutMs} ms`, retryAfter),
          );
        }, cfg.sendTimeoutMs),
      };
      queue.push(entry);
      pump();
    });
  };

  return {
    name: 'kafka',

    write(request: ExportTraceServiceRequest, context: SinkContext): Promise<void> {
      // Refuse before splitting when the answer is known to be 503 anyway.
      if (closed || Date.now() < downUntil) return writeEncoded([], context);
      return writeEncoded(splitByTrace(request, context.encodedSpan), context);
    },

    writeEncoded,

    async ready(): Promise<boolean> {
      const now = Date.now();
      if (now < downUntil) return false;
      if (now - lastOkAt < READY_CACHE_MS) return true;
      if (!readyCache || now - readyCache.at > READY_CACHE_MS) readyCache = { at: now, value: probe() };
      return readyCache.value;
    },

    async ensureTopic(): Promise<void> {
      if (!cfg.createTopic) return;
      await ensureTopics(kafkaClient(), [{ topic: cfg.topic, numPartitions: cfg.topicPartitions }]);
    },

    async close(): Promise<void> {
      closed = true;
      // Let the batch in flight finish; queued writes are refused (their clients get 503 and retry elsewhere).
      for (const p of queue.splice(0)) {
        clearTimeout(p.timer);
        if (!p.settled) {
          p.settled = true;
          p.reject(new SinkUnavailableError('the collector is shutting down', retryAfter));
        }
      }
      const deadline = Date.now() + cfg.sendTimeoutMs;
      while (slots.some((s) => s.busy) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      await Promise.all(
        slots.map(async (slot) => {
          const p = slot.producer;
          slot.producer = undefined;
          slot.connected = undefined;
          await p?.disconnect().catch(() => {});
        }),
      );
    },
  };
}
