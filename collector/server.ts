/**
 * Builds the collector's Fastify app from a validated configuration and a sink: auth, the OTLP traces route,
 * health and metrics. Closing the app closes the sink (after in-flight requests finished).
 */
import { readFileSync } from 'node:fs';
import type { TlsOptions } from 'node:tls';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import { collectorClientErrorHandler } from './client-errors.ts';
import { type CollectorConfig, validateCollectorConfig } from './config.ts';
import { CollectorMetrics } from './metrics.ts';
import auth from './plugins/auth.ts';
import health from './plugins/health.ts';
import metricsPlugin from './plugins/metrics.ts';
import otlpTraces from './plugins/otlp-traces.ts';
import rejections from './plugins/rejections.ts';
import { PreparePool } from './prepare-pool.ts';
import { RejectionWindow } from './rejection-window.ts';
import { SenderLog } from './sender-log.ts';
import type { SpanSink } from './sink.ts';

export interface CollectorServerOptions {
  config: CollectorConfig;
  sink: SpanSink;
  metrics?: CollectorMetrics;
  logger?: FastifyServerOptions['logger'];
  /** Close the sink when the app closes (default true). */
  closeSink?: boolean;
  /** Where rejection and flag reasons are told, once per minute per tenant (default: the logger, info level). */
  senders?: (line: string) => void;
}

/** Node's TLS server options of `http.tls` (absent: plain HTTP); the files are read here, at start. */
function httpsOptions(tls: CollectorConfig['http']['tls']): TlsOptions | undefined {
  if (!tls.certFile || !tls.keyFile) return undefined;
  return {
    cert: readFileSync(tls.certFile),
    key: readFileSync(tls.keyFile),
    ...(tls.clientCaFile ? { ca: readFileSync(tls.clientCaFile), requestCert: true, rejectUnauthorized: true } : {}),
  };
}

export async function buildCollectorServer(options: CollectorServerOptions): Promise<FastifyInstance> {
  const problems = validateCollectorConfig(options.config);
  if (problems.length > 0) throw new Error(`invalid collector configuration: ${problems.join('; ')}`);
  const { config, sink } = options;
  const metrics = options.metrics ?? new CollectorMetrics({ tenantLabels: config.metrics.tenantLabels });
  const { headersTimeoutMs, requestTimeoutMs, idleTimeoutMs } = config.http;
  // Node answers 408 and closes a connection whose headers or whole request did not arrive in time; it checks
  // every connectionsCheckingInterval, so that is kept well under the timeouts (Node's default is 30 s).
  const http = {
    headersTimeout: headersTimeoutMs,
    requestTimeout: requestTimeoutMs,
    connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
  };
  const https = httpsOptions(config.http.tls);
  const app = Fastify({
    logger: options.logger ?? false,
    // With TLS, Fastify builds an https server from `https` alone: the same timeouts go in there.
    ...(https ? { https: { ...http, ...https } } : { http }),
    requestTimeout: requestTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    keepAliveTimeout: idleTimeoutMs,
    // Fastify's own body limit does not apply: our parser bounds the body before and after decompression.
    bodyLimit: config.limits.maxWireBytes,
    return503OnClosing: true,
    clientErrorHandler: collectorClientErrorHandler({
      headersTimeoutMs,
      requestTimeoutMs,
      count: (reason) => metrics.connectionErrors.inc({ reason }),
    }),
  });
  await app.register(auth, config.auth);
  const pool = config.decodeThreads > 0 && sink.writeEncoded ? new PreparePool(config.decodeThreads) : undefined;
  if (pool) app.addHook('onClose', async () => pool.close());
  const senderLog = new SenderLog(options.senders ?? ((line) => app.log.info(line)));
  const rejected = new RejectionWindow();
  await app.register(otlpTraces, {
    limits: config.limits,
    sink,
    metrics,
    senderLog,
    rejectionWindow: rejected,
    ...(pool ? { pool } : {}),
  });
  await app.register(rejections, { window: rejected, auth: config.auth, operatorToken: config.metrics.token });
  await app.register(health, { sink });
  await app.register(metricsPlugin, { metrics, token: config.metrics.token });
  if (options.closeSink ?? true) app.addHook('onClose', async () => sink.close());
  return app;
}
