/**
 * Connection failures in words a user can act on: which SASL mechanism was refused, whether the broker's
 * certificate was not trusted or the client's refused, and the setting that fixes it. The client reports the first
 * as an authentication error that does not name the mechanism, and the others as network errors whose causes carry
 * the TLS alert or verification failure.
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

/** `err` and every error under it (causes, and the errors an AggregateError gathers), breadth first, bounded. */
function errorsUnder(err: unknown): Error[] {
  const out: Error[] = [];
  const queue: unknown[] = [err];
  while (queue.length > 0 && out.length < 50) {
    const e = queue.shift();
    if (!(e instanceof Error) || out.includes(e)) continue;
    out.push(e);
    if (e.cause !== undefined) queue.push(e.cause);
    if (e instanceof AggregateError) queue.push(...e.errors);
  }
  return out;
}

const codeOf = (e: Error): unknown => (e as Error & { code?: unknown }).code;

/**
 * The error to report for `err`: a KafkaConnectError when it is a TLS or SASL refusal, else `err` itself.
 * `mechanism` names the configured SASL mechanism (the client's errors do not).
 */
export function explainKafkaError(err: unknown, mechanism?: string): unknown {
  if (!(err instanceof Error) || err instanceof KafkaConnectError) return err;
  const all = errorsUnder(err);
  const text = all.map((e) => e.message).join(' / ');
  const sasl = all.some(
    (e) => codeOf(e) === 'PLT_KFK_AUTHENTICATION' || /SASL .*authentication failed/i.test(e.message),
  );
  if (sasl) {
    const named = mechanism ?? 'SASL';
    const detail = all.at(-1)?.message ?? text;
    return new KafkaConnectError(
      'sasl_authentication_failed',
      `Kafka refused SASL ${named} authentication (${detail}); check ${kafkaSecurityEnvKey('sasl.username')}, ${kafkaSecurityEnvKey('sasl.password')} and ${kafkaSecurityEnvKey('sasl.mechanism')}`,
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

/** Runs `fn`, rethrowing its failure explained (`mechanism`: the configured SASL mechanism, see above). */
export async function explained<T>(fn: () => Promise<T>, mechanism?: string): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw explainKafkaError(err, mechanism);
  }
}

/** True for an error the Kafka client raised (connecting, a request, a timeout), not one of the caller's. */
export function isKafkaClientError(err: unknown): err is Error {
  return err instanceof KafkaConnectError || (err instanceof Error && String(codeOf(err)).startsWith('PLT_KFK_'));
}
