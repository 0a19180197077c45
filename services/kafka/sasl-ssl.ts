/**
 * The local broker's SASL_SSL listener for `tooltrail services up --kafka-sasl-ssl`: a CA and a server certificate
 * made with openssl, one user for SASL PLAIN, SCRAM-SHA-256 and SCRAM-SHA-512 with a generated local-dev password
 * kept in a 0600 file, and a client env file naming every setting but the password itself. All of it lives under
 * `<home>/kafka/sasl-ssl/` and is made once: a second `up` reuses it.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { KAFKA_SASL_PASSWORD_FILE_ENV, kafkaSecurityEnvKey } from '../../platform/kafka/index.ts';
import { makeCa, makeCertificate } from '../certificates.ts';
import type { KafkaSaslSslListener, ServicesConfig } from '../config.ts';
import { ServiceError } from '../errors.ts';

export const LOCAL_SASL_USER = 'tooltrail';
/** Local development only: long enough not to expire under a developer's feet. */
const CERTIFICATE_DAYS = 825;

/** Where a client finds what it needs to connect; the password only in `passwordFile` (mode 0600). */
export interface LocalSaslSslAccess {
  bootstrap: string;
  caFile: string;
  username: string;
  passwordFile: string;
  /** KEY=value lines for the collector and ingest (SCRAM-SHA-512), the password by file. */
  envFile: string;
}

export function saslSslDir(home: string): string {
  return join(home, 'kafka', 'sasl-ssl');
}

function passwordOf(file: string): string {
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return readFileSync(file, 'utf8').trim();
  }
  // base64url: nothing the broker's JAAS file cannot hold (no quotes, backslashes, spaces or semicolons).
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, `${password}\n`, { mode: 0o600 });
  return password;
}

/**
 * The listener `config` asks for (TOOLTRAIL_KAFKA_SASL_SSL=true), its certificates and password made on first use;
 * undefined when none is asked for. Refused for an external Kafka and for the local cluster (one broker only).
 */
export function prepareLocalSaslSsl(
  config: ServicesConfig,
): { listener: KafkaSaslSslListener; access: LocalSaslSslAccess } | undefined {
  const port = config.kafka.saslSslPort;
  if (port === undefined) return undefined;
  if (config.kafka.mode === 'external') {
    throw new ServiceError(
      'kafka',
      '--kafka-sasl-ssl starts a listener on the local broker, but TOOLTRAIL_KAFKA_BROKERS names your own cluster',
      'unset TOOLTRAIL_KAFKA_BROKERS, or configure SASL_SSL on your cluster',
    );
  }
  if (config.kafka.brokerCount > 1) {
    throw new ServiceError(
      'kafka',
      '--kafka-sasl-ssl is served by the single local broker, not the replicated cluster',
      'drop --kafka-brokers (or TOOLTRAIL_KAFKA_BROKER_COUNT)',
    );
  }
  const dir = saslSslDir(config.home);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const caFile = join(dir, 'local-ca.pem');
  const certFile = join(dir, 'broker.pem');
  const keyFile = join(dir, 'broker.key');
  if (!existsSync(certFile) || !existsSync(keyFile) || !existsSync(caFile)) {
    try {
      const ca = makeCa(dir, 'local', CERTIFICATE_DAYS);
      makeCertificate(ca, 'broker', { days: CERTIFICATE_DAYS });
    } catch (err) {
      throw new ServiceError(
        'kafka',
        `making the SASL_SSL listener's certificates with openssl failed: ${(err as Error).message.split('\n')[0]}`,
        'install openssl (apt-get install openssl)',
      );
    }
  }
  const passwordFile = join(dir, 'password');
  const password = passwordOf(passwordFile);
  const bootstrap = `127.0.0.1:${port}`;
  const envFile = join(dir, 'client.env');
  writeFileSync(
    envFile,
    [
      '# The local broker SASL_SSL listener (tooltrail services up --kafka-sasl-ssl); local development only.',
      `TOOLTRAIL_KAFKA_BROKERS=${bootstrap}`,
      `${kafkaSecurityEnvKey('tls.caFile')}=${caFile}`,
      `${kafkaSecurityEnvKey('sasl.mechanism')}=scram-sha-512`,
      `${kafkaSecurityEnvKey('sasl.username')}=${LOCAL_SASL_USER}`,
      `${KAFKA_SASL_PASSWORD_FILE_ENV}=${passwordFile}`,
      '',
    ].join('\n'),
  );
  return {
    listener: {
      port,
      certFile,
      keyFile,
      plainUsers: { [LOCAL_SASL_USER]: password },
      scramUsers: [
        { name: LOCAL_SASL_USER, password, mechanism: 'SCRAM-SHA-256' },
        { name: LOCAL_SASL_USER, password, mechanism: 'SCRAM-SHA-512' },
      ],
    },
    access: { bootstrap, caFile, username: LOCAL_SASL_USER, passwordFile, envFile },
  };
}

/** True when the running broker's generated settings hold the SASL_SSL listener on `port`. */
export function brokerServesSaslSsl(home: string, port: number): boolean {
  const props = join(home, 'kafka', 'server.properties');
  return existsSync(props) && readFileSync(props, 'utf8').includes(`SASL_SSL://127.0.0.1:${port}`);
}
