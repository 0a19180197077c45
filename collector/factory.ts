/**
 * Builds a whole collector from its configuration: the sink it names (Kafka, or discard for benchmarks), the
 * metrics, the Fastify app; `start()` creates the topic when asked and listens, `close()` drains and disconnects.
 */
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { isLoopback } from '../platform/auth/loopback.ts';
import type { CollectorConfig } from './config.ts';
import { CollectorMetrics } from './metrics.ts';
import { buildCollectorServer } from './server.ts';
import type { SpanSink } from './sink.ts';
import { createDiscardSink } from './sinks/discard-sink.ts';
import { createKafkaSink } from './sinks/kafka-sink.ts';

export interface Collector {
  app: FastifyInstance;
  sink: SpanSink;
  metrics: CollectorMetrics;
  /** Listens on `http.host:http.port`; resolves to the bound address (`http://host:port`). */
  start(): Promise<string>;
  close(): Promise<void>;
}

export interface CreateCollectorOptions {
  logger?: FastifyServerOptions['logger'];
  /** Silence the Kafka client's own error log. */
  quiet?: boolean;
  /** Where start-up notes go (warnings such as the no-auth banner); default console.error. */
  notify?: (line: string) => void;
  /** Use this sink instead of the configured one (e.g. the direct ClickHouse writer). */
  sink?: SpanSink;
  /** Where each rejection and flag reason is told, once per minute per tenant (default: see below). */
  senders?: (line: string) => void;
}

export async function createCollector(
  config: CollectorConfig,
  options: CreateCollectorOptions = {},
): Promise<Collector> {
  const notify = options.notify ?? ((line: string) => console.error(line));
  const metrics = new CollectorMetrics({ tenantLabels: config.metrics.tenantLabels });
  const kafkaSink =
    options.sink === undefined && config.sink === 'kafka'
      ? createKafkaSink({
          config: config.kafka,
          quiet: options.quiet ?? false,
          observer: {
            onSend: (seconds, messages, ok) => {
              metrics.kafkaSendDuration.observe({ outcome: ok ? 'ok' : 'failed' }, seconds);
              metrics.kafkaMessages.inc({ outcome: ok ? 'ok' : 'failed' }, messages);
            },
            onStateChange: (state, reason) => {
              metrics.setSinkUp(state === 'up');
              notify(`tooltrail collector: Kafka ${state === 'up' ? 'is back' : `unavailable (${reason})`}`);
            },
          },
        })
      : undefined;
  const sink = options.sink ?? kafkaSink ?? createDiscardSink();
  // Development (no auth), or no logger: what senders get wrong goes to notify; otherwise to the logger at info level.
  const app = await buildCollectorServer({
    config,
    sink,
    metrics,
    logger: options.logger ?? false,
    ...(options.senders
      ? { senders: options.senders }
      : config.auth.mode === 'none' || !options.logger
        ? { senders: notify }
        : {}),
  });
  return {
    app,
    sink,
    metrics,
    async start() {
      if (config.auth.mode === 'none' && !isLoopback(config.http.host)) {
        throw new Error(`auth.mode none binds to loopback only, not ${config.http.host}`);
      }
      if (kafkaSink) {
        try {
          await kafkaSink.ensureTopic();
        } catch (err) {
          notify(
            `tooltrail collector: could not check or create topic ${config.kafka.topic} (${(err as Error).message}); /readyz reports Kafka`,
          );
        }
      }
      const address = await app.listen({ host: config.http.host, port: config.http.port });
      if (config.auth.mode === 'none') {
        notify(
          `tooltrail collector: AUTHENTICATION DISABLED (auth.mode none, local development): every request is tenant "${config.auth.noAuthTenant}"; listening on loopback only`,
        );
      }
      if (config.sink === 'discard' && !options.sink) {
        notify('tooltrail collector: sink "discard": spans are acknowledged and DROPPED (benchmark baseline)');
      }
      return address;
    },
    close: () => app.close(),
  };
}
