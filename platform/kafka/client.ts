/**
 * The one place kafkajs is constructed. kafkajs is in maintenance mode; keeping every Kafka call behind
 * platform/kafka/ makes a measured switch to another client a change to this folder only.
 */
import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import kafkajs, { type SASLOptions } from 'kafkajs';
import './throttle-timer.ts';
import type { KafkaSecurity } from './security.ts';

const { Kafka, logLevel } = kafkajs;
export type KafkaClient = InstanceType<typeof Kafka>;

export interface KafkaClientOptions {
  brokers: string[];
  clientId: string;
  /** TLS and SASL (platform/kafka/security.ts); absent: plaintext, no authentication. */
  security?: KafkaSecurity;
  /** Connection timeout per broker; kept short so a down broker is reported quickly. */
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Retries of kafkajs itself; callers that implement their own backpressure set 0. */
  retries?: number;
  /** Log kafkajs errors to stderr (default) or stay silent (tests that stop brokers on purpose). */
  quiet?: boolean;
}

/** Node's TLS options of the settings; the files are read here, once per client. */
export function tlsOptionsOf(security: KafkaSecurity | undefined): ConnectionOptions | undefined {
  const tls = security?.tls;
  if (!tls?.enabled) return undefined;
  return {
    ...(tls.caFile ? { ca: [readFileSync(tls.caFile)] } : {}),
    ...(tls.certFile && tls.keyFile ? { cert: readFileSync(tls.certFile), key: readFileSync(tls.keyFile) } : {}),
  };
}

function saslOptionsOf(security: KafkaSecurity | undefined): SASLOptions | undefined {
  const sasl = security?.sasl;
  if (!sasl || sasl.mechanism === 'none') return undefined;
  return { mechanism: sasl.mechanism, username: sasl.username, password: sasl.password.reveal() };
}

export function createKafkaClient(options: KafkaClientOptions): KafkaClient {
  const ssl = tlsOptionsOf(options.security);
  const sasl = saslOptionsOf(options.security);
  return new Kafka({
    brokers: options.brokers,
    clientId: options.clientId,
    ...(ssl ? { ssl } : {}),
    ...(sasl ? { sasl } : {}),
    connectionTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: { retries: options.retries ?? 5, initialRetryTime: 100, maxRetryTime: 2_000 },
    logLevel: options.quiet ? logLevel.NOTHING : logLevel.ERROR,
  });
}
