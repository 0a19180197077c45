/**
 * `tooltrail ingest` as a running service: builds the clients from the configuration, starts the loop, the lag
 * poller and the metrics endpoint, and shuts down in order (consumer, then dead-letter producer, then ClickHouse).
 */
import { createServer, type Server } from 'node:http';
import { type ClickHouseClient, clickHouseOf } from '../platform/clickhouse.ts';
import {
  createBatchConsumer,
  createIdempotentProducer,
  createKafkaClient,
  ensureTopics,
  fetchConsumerLag,
} from '../platform/kafka/index.ts';
import { createBatchLog } from './batch-log.ts';
import type { BatchStoredHook } from './batch-stored.ts';
import type { IngestConfig } from './config.ts';
import { IngestLoop } from './consumer.ts';
import { emitterOptions } from './emitters/options.ts';
import { IngestMetrics } from './metrics.ts';
import { createClickHouseWriter } from './writer.ts';

export interface RunningIngest {
  metrics: IngestMetrics;
  /** Port of the metrics endpoint, when served. */
  metricsPort?: number;
  /** Resolves when the loop ended (after `stop()`), rejects if the consumer crashed for good. */
  done: Promise<void>;
  stop(): Promise<void>;
}

export interface StartIngestOptions {
  log?: (message: string) => void;
  /**
   * Called for every stored batch, after ClickHouse acknowledged the rows and before the offsets are committed
   * (the assembly wires the audit's digest recorder). Built from the ingest's own ClickHouse client.
   */
  batchStored?: (ch: ClickHouseClient) => BatchStoredHook;
}

export async function startIngest(config: IngestConfig, options: StartIngestOptions = {}): Promise<RunningIngest> {
  const log = options.log ?? ((m: string) => console.error(`tooltrail ingest: ${m}`));
  const emitters = emitterOptions(config.emitters);
  const metrics = new IngestMetrics();
  const kafka = createKafkaClient({
    brokers: config.kafka.brokers,
    clientId: config.kafka.clientId,
    security: { tls: config.kafka.tls, sasl: config.kafka.sasl },
    client: config.kafka.client,
    quiet: true,
  });
  if (config.kafka.createTopics) {
    await ensureTopics(kafka, [
      { topic: config.kafka.topic, numPartitions: config.kafka.topicPartitions },
      { topic: config.kafka.deadLetterTopic, numPartitions: 1 },
    ]);
  }
  const ch = clickHouseOf(config.clickhouse, { requestTimeoutMs: config.clickhouse.requestTimeoutMs });
  const producer = createIdempotentProducer(kafka);
  await producer.connect();
  const consumer = await createBatchConsumer(kafka, {
    groupId: config.kafka.groupId,
    topic: config.kafka.topic,
    minBytes: config.batch.minFetchBytes,
    maxWaitTimeMs: config.batch.lingerMs,
    maxBytesPerPartition: config.batch.maxBytes,
    maxBytes: config.batch.maxBytes * 2,
    sessionTimeoutMs: config.kafka.sessionTimeoutMs,
    partitionsConcurrently: config.batch.concurrency,
    heartbeatIntervalMs: Math.min(3_000, Math.floor(config.kafka.sessionTimeoutMs / 3)),
  });
  const loop = new IngestLoop({
    topic: config.kafka.topic,
    consumer,
    writer: createClickHouseWriter(ch, {
      database: config.clickhouse.database,
      metrics,
      ...(options.batchStored ? { batchStored: options.batchStored(ch) } : {}),
    }),
    batchLog: createBatchLog(ch, config.clickhouse.database, config.kafka.groupId, config.kafka.topic),
    deadLetters: { send: (messages) => producer.send(config.kafka.deadLetterTopic, messages) },
    deadLetterTopic: config.kafka.deadLetterTopic,
    metrics,
    limits: { maxRows: config.batch.maxRows, maxBytes: config.batch.maxBytes },
    backoff: { initialMs: config.retry.initialBackoffMs, maxMs: config.retry.maxBackoffMs },
    dedupWindow: config.dedupWindow,
    flatten: { ...(config.defaultTenant ? { defaultTenant: config.defaultTenant } : {}), emitters },
    log,
  });

  let crashed: (err: Error) => void = () => {};
  let ended: () => void = () => {};
  const done = new Promise<void>((resolve, reject) => {
    ended = resolve;
    crashed = reject;
  });
  consumer.onCrash((error, restart) => {
    log(`consumer crashed${restart ? ' (it restarts itself)' : ''}: ${error.message}`);
    if (!restart) crashed(error);
  });

  let lagTimer: NodeJS.Timeout | undefined;
  let lagPoll: Promise<void> | undefined;
  let stopping = false;
  const pollLag = async () => {
    try {
      for (const l of await fetchConsumerLag(kafka, config.kafka.groupId, config.kafka.topic)) {
        metrics.consumerLag.set({ partition: String(l.partition) }, l.lag);
      }
    } catch (err) {
      log(`reading consumer lag failed: ${(err as Error).message}`);
    }
    scheduleLagPoll();
  };
  // Never again once stop() began: a poll in flight at stop would otherwise start the next one after it.
  const scheduleLagPoll = () => {
    if (stopping) return;
    lagTimer = setTimeout(() => {
      lagPoll = pollLag();
    }, config.metrics.lagIntervalMs);
    lagTimer.unref();
  };
  scheduleLagPoll();

  let server: Server | undefined;
  let metricsPort: number | undefined;
  if (config.metrics.port !== undefined) {
    server = createServer((req, res) => {
      if (req.url === '/metrics') {
        metrics.render().then(
          (text) => res.writeHead(200, { 'content-type': metrics.contentType }).end(text),
          () => res.writeHead(500).end(),
        );
      } else if (req.url === '/healthz') {
        res.writeHead(200).end('ok\n');
      } else res.writeHead(404).end();
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject).listen(config.metrics.port, config.metrics.host, resolve);
    });
    const addr = server.address();
    metricsPort = typeof addr === 'object' && addr ? addr.port : undefined;
  }

  await loop.run();
  let stopped: Promise<void> | undefined;
  return {
    metrics,
    ...(metricsPort !== undefined ? { metricsPort } : {}),
    done,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        clearTimeout(lagTimer);
        await lagPoll;
        await loop.stop();
        await producer.disconnect();
        await ch.close();
        if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
        ended();
      })();
      return stopped;
    },
  };
}
