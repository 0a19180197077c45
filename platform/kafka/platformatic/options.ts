/** Our client options as @platformatic/kafka's base options (brokers, timeouts, retries, TLS, SASL). */
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
