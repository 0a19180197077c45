/** Our client options as @platformatic/kafka's base options (brokers, timeouts, retries, TLS, SASL). */
import type { EventEmitter } from 'node:events';
import type { BaseOptions, SASLOptions } from '@platformatic/kafka';
import type { KafkaSecurity } from '../security.ts';
import { tlsOptionsOf } from '../tls.ts';
import type { KafkaClientOptions } from '../types.ts';

const MECHANISMS = { plain: 'PLAIN', 'scram-sha-256': 'SCRAM-SHA-256', 'scram-sha-512': 'SCRAM-SHA-512' } as const;

function saslOptionsOf(security: KafkaSecurity | undefined): SASLOptions | undefined {
  const sasl = security?.sasl;
  if (!sasl || sasl.mechanism === 'none') return undefined;
  return { mechanism: MECHANISMS[sasl.mechanism], username: sasl.username, password: sasl.password.reveal() };
}

export function baseOptionsOf(options: KafkaClientOptions, clientIdSuffix = ''): BaseOptions {
  const tls = tlsOptionsOf(options.security);
  const sasl = saslOptionsOf(options.security);
  return {
    clientId: `${options.clientId}${clientIdSuffix}`,
    bootstrapBrokers: options.brokers,
    connectTimeout: options.connectionTimeoutMs ?? 3_000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retries: options.retries ?? 5,
    retryDelay: 250,
    ...(tls ? { tls } : {}),
    ...(sasl ? { sasl } : {}),
  };
}

/** The configured SASL mechanism as users write it, for errors (the library's do not name it). */
export function saslMechanismOf(options: KafkaClientOptions): string | undefined {
  const m = options.security?.sasl.mechanism;
  return m && m !== 'none' ? MECHANISMS[m] : undefined;
}

interface BrokerEvents {
  on(
    event: 'client:broker:connect' | 'client:broker:failed',
    listener: (p: { connection?: EventEmitter }) => void,
  ): unknown;
}

/**
 * A connection that failed can emit a second 'error' (a TLS alert after the handshake, when the broker refuses the
 * client's certificate) once the pool's one-time listener is gone: with no listener Node throws it and the process
 * dies. The failure itself is already reported through the operation's promise.
 */
export function absorbLateConnectionErrors(client: object): void {
  const absorb = (p: { connection?: EventEmitter }) => {
    p.connection?.on('error', () => {});
  };
  (client as BrokerEvents).on('client:broker:connect', absorb);
  (client as BrokerEvents).on('client:broker:failed', absorb);
}
