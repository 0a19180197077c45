/**
 * Connection failures in words a user can act on: which SASL mechanism was refused, whether the broker's
 * certificate was not trusted or the client's refused, and the setting that fixes it. kafkajs reports the first
 * as a SASL error and the others as retried connection errors ("Connection error: unable to verify ...").
 */
import { kafkaSecurityEnvKey } from './security.ts';

export type KafkaConnectReason = 'sasl_authentication_failed' | 'tls_untrusted_broker' | 'tls_client_refused';

export class KafkaConnectError extends Error {
  override name = 'KafkaConnectError';
  constructor(
    readonly reason: KafkaConnectReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

const UNTRUSTED =
  /unable to verify the first certificate|self[- ]signed certificate|unable to get (local )?issuer certificate|certificate has expired|Hostname\/IP does not match|ERR_TLS_CERT_ALTNAME_INVALID/i;
const CLIENT_REFUSED = /alert bad certificate|certificate required|alert unknown ca|alert handshake failure/i;
/** kafkajs spells mechanisms `SCRAM SHA256`; users configure `SCRAM-SHA-256`. */
const MECHANISM = /SASL (PLAIN|SCRAM SHA256|SCRAM SHA512)/;
const MECHANISM_NAMES: Record<string, string> = {
  PLAIN: 'PLAIN',
  'SCRAM SHA256': 'SCRAM-SHA-256',
  'SCRAM SHA512': 'SCRAM-SHA-512',
};

function messagesOf(err: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) parts.push(e.message);
  return parts.join(' / ');
}

/** The error to report for `err`: a KafkaConnectError when it is a TLS or SASL refusal, else `err` itself. */
export function explainKafkaError(err: unknown): unknown {
  if (!(err instanceof Error) || err instanceof KafkaConnectError) return err;
  const text = messagesOf(err);
  if (err.name === 'KafkaJSSASLAuthenticationError' || /SASL .*authentication failed/i.test(text)) {
    const mechanism = MECHANISM_NAMES[MECHANISM.exec(text)?.[1] ?? ''] ?? 'SASL';
    const detail = text.replace(/^SASL [A-Z0-9 ]+ authentication failed: /, '');
    return new KafkaConnectError(
      'sasl_authentication_failed',
      `Kafka refused SASL ${mechanism} authentication (${detail}); check ${kafkaSecurityEnvKey('sasl.username')}, ${kafkaSecurityEnvKey('sasl.password')} and ${kafkaSecurityEnvKey('sasl.mechanism')}`,
      { cause: err },
    );
  }
  const untrusted = UNTRUSTED.exec(text);
  if (untrusted) {
    return new KafkaConnectError(
      'tls_untrusted_broker',
      `Kafka TLS: the broker's certificate is not trusted (${untrusted[0]}); set ${kafkaSecurityEnvKey('tls.caFile')} to the CA that signed it`,
      { cause: err },
    );
  }
  if (CLIENT_REFUSED.test(text)) {
    return new KafkaConnectError(
      'tls_client_refused',
      `Kafka TLS: the broker refused the client's certificate (or none was given); set ${kafkaSecurityEnvKey('tls.certFile')} and ${kafkaSecurityEnvKey('tls.keyFile')} to one signed by a CA the broker trusts`,
      { cause: err },
    );
  }
  return err;
}

/** Runs `fn`, rethrowing its failure explained. */
export async function explained<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw explainKafkaError(err);
  }
}
