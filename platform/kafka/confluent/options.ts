/** Our client options as librdkafka properties (brokers, timeouts, retries, TLS, SASL, logging). */
import type { KafkaClientOptions } from '../types.ts';

/** librdkafka properties, as @confluentinc/kafka-javascript takes them (names as in librdkafka's CONFIGURATION.md). */
export type RdkafkaProperties = Record<string, string | number | boolean>;

const MECHANISMS = { plain: 'PLAIN', 'scram-sha-256': 'SCRAM-SHA-256', 'scram-sha-512': 'SCRAM-SHA-512' } as const;

/** The configured SASL mechanism as users write it, for errors. */
export function saslMechanismOf(options: KafkaClientOptions): string | undefined {
  const m = options.security?.sasl.mechanism;
  return m && m !== 'none' ? MECHANISMS[m] : undefined;
}

/** Connection, security and logging properties shared by producers, consumers and admin clients. */
export function baseProperties(options: KafkaClientOptions, clientIdSuffix = ''): RdkafkaProperties {
  const tls = options.security?.tls;
  const sasl = options.security?.sasl;
  const withSasl = sasl !== undefined && sasl.mechanism !== 'none';
  const protocol = tls?.enabled ? (withSasl ? 'sasl_ssl' : 'ssl') : withSasl ? 'sasl_plaintext' : 'plaintext';
  const props: RdkafkaProperties = {
    'bootstrap.servers': options.brokers.join(','),
    'client.id': `${options.clientId}${clientIdSuffix}`,
    'security.protocol': protocol,
    'socket.connection.setup.timeout.ms': Math.max(1_000, options.connectionTimeoutMs ?? 3_000),
    'socket.timeout.ms': Math.max(10, options.requestTimeoutMs ?? 30_000),
    'retry.backoff.ms': 100,
    'retry.backoff.max.ms': 2_000,
    'reconnect.backoff.ms': 100,
    'reconnect.backoff.max.ms': 2_000,
    // librdkafka logs connection refusals and retries itself (each is also reported through the calls that fail).
    log_level: options.quiet ? 0 : 3,
  };
  if (tls?.enabled) {
    if (tls.caFile) props['ssl.ca.location'] = tls.caFile;
    if (tls.certFile && tls.keyFile) {
      props['ssl.certificate.location'] = tls.certFile;
      props['ssl.key.location'] = tls.keyFile;
    }
  }
  if (withSasl) {
    props['sasl.mechanisms'] = MECHANISMS[sasl.mechanism as keyof typeof MECHANISMS];
    props['sasl.username'] = sasl.username;
    props['sasl.password'] = sasl.password.reveal();
  }
  return props;
}
