/**
 * How a client secures its Kafka connections: TLS (the broker's CA, a client certificate for mTLS) and SASL
 * (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512), as a managed Kafka asks for them. Plain data, read once at the edge
 * (the environment, or a stage's config file) and validated there; every problem names its exact key.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { Secret } from '../secret.ts';

export const SASL_MECHANISMS = ['none', 'plain', 'scram-sha-256', 'scram-sha-512'] as const;
export type SaslMechanism = (typeof SASL_MECHANISMS)[number];

export interface KafkaTlsSettings {
  /** Connect with TLS. On by itself verifies the broker against the system's CAs. */
  enabled: boolean;
  /** PEM file of the CA(s) that signed the broker's certificate (a private or self-signed CA). */
  caFile?: string;
  /** PEM client certificate (mTLS) and its unencrypted key; both or neither. */
  certFile?: string;
  keyFile?: string;
}

export interface KafkaSaslSettings {
  mechanism: SaslMechanism;
  username: string;
  password: Secret;
}

export interface KafkaSecurity {
  tls: KafkaTlsSettings;
  sasl: KafkaSaslSettings;
}

export function defaultKafkaSecurity(): KafkaSecurity {
  return { tls: { enabled: false }, sasl: { mechanism: 'none', username: '', password: new Secret('') } };
}

/** The field names, so the caller maps each to its key (`collector.kafka.tls.caFile`, `TOOLTRAIL_KAFKA_TLS_CA_FILE`). */
export type KafkaSecurityField =
  | 'tls.enabled'
  | 'tls.caFile'
  | 'tls.certFile'
  | 'tls.keyFile'
  | 'sasl.mechanism'
  | 'sasl.username'
  | 'sasl.password';

function unreadable(path: string): string | undefined {
  try {
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (err) {
    return `cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`;
  }
}

export interface KafkaSecurityIssue {
  field: KafkaSecurityField;
  message: string;
}

/** Every problem of `s`; messages name other keys through `key`, and never hold the password itself. */
export function kafkaSecurityIssues(
  s: KafkaSecurity,
  key: (field: KafkaSecurityField) => string,
): KafkaSecurityIssue[] {
  const issues: KafkaSecurityIssue[] = [];
  const add = (field: KafkaSecurityField, message: string) => issues.push({ field, message });
  const { tls, sasl } = s;
  if (typeof tls.enabled !== 'boolean') add('tls.enabled', 'must be true or false');
  for (const name of ['caFile', 'certFile', 'keyFile'] as const) {
    const field = `tls.${name}` as const;
    const path = tls[name];
    if (path === undefined) continue;
    if (typeof path !== 'string' || path === '') {
      add(field, 'must be a file path');
      continue;
    }
    if (!tls.enabled) add(field, `is set but TLS is off (${key('tls.enabled')})`);
    const why = unreadable(path);
    if (why) add(field, why);
  }
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    add(
      tls.certFile === undefined ? 'tls.certFile' : 'tls.keyFile',
      `a client certificate needs both ${key('tls.certFile')} and ${key('tls.keyFile')}`,
    );
  }
  if (!SASL_MECHANISMS.includes(sasl.mechanism)) {
    add('sasl.mechanism', `must be one of ${SASL_MECHANISMS.join(', ')}`);
  } else if (sasl.mechanism !== 'none') {
    const mechanism = sasl.mechanism.toUpperCase();
    if (typeof sasl.username !== 'string' || sasl.username === '') {
      add('sasl.username', `must not be empty with SASL ${mechanism}`);
    }
    if (!(sasl.password instanceof Secret) || sasl.password.empty) {
      add('sasl.password', `must not be empty with SASL ${mechanism}`);
    }
  }
  return issues;
}

/** Every problem of `s`, each as `<key>: <what is wrong>`. */
export function kafkaSecurityProblems(s: KafkaSecurity, key: (field: KafkaSecurityField) => string): string[] {
  return kafkaSecurityIssues(s, key).map((i) => `${key(i.field)}: ${i.message}`);
}

const ENV_KEYS: Record<KafkaSecurityField, string> = {
  'tls.enabled': 'TOOLTRAIL_KAFKA_TLS',
  'tls.caFile': 'TOOLTRAIL_KAFKA_TLS_CA_FILE',
  'tls.certFile': 'TOOLTRAIL_KAFKA_TLS_CERT_FILE',
  'tls.keyFile': 'TOOLTRAIL_KAFKA_TLS_KEY_FILE',
  'sasl.mechanism': 'TOOLTRAIL_KAFKA_SASL_MECHANISM',
  'sasl.username': 'TOOLTRAIL_KAFKA_SASL_USERNAME',
  'sasl.password': 'TOOLTRAIL_KAFKA_SASL_PASSWORD',
};
export const KAFKA_SASL_PASSWORD_FILE_ENV = 'TOOLTRAIL_KAFKA_SASL_PASSWORD_FILE';
export const kafkaSecurityEnvKey = (field: KafkaSecurityField): string => ENV_KEYS[field];

/**
 * The security settings the environment gives (TOOLTRAIL_KAFKA_TLS*, TOOLTRAIL_KAFKA_SASL_*), with every problem
 * naming its variable. A CA or client certificate turns TLS on; TOOLTRAIL_KAFKA_SASL_PASSWORD_FILE reads the
 * password from a file (a mounted secret) instead.
 */
export function kafkaSecurityFromEnv(env: NodeJS.ProcessEnv): { security: KafkaSecurity; problems: string[] } {
  const problems: string[] = [];
  const security = defaultKafkaSecurity();
  const tlsFlag = env[ENV_KEYS['tls.enabled']];
  const files = {
    caFile: env[ENV_KEYS['tls.caFile']],
    certFile: env[ENV_KEYS['tls.certFile']],
    keyFile: env[ENV_KEYS['tls.keyFile']],
  };
  const anyFile = Object.values(files).some((f) => f !== undefined && f !== '');
  if (tlsFlag !== undefined && tlsFlag !== '' && tlsFlag !== 'true' && tlsFlag !== 'false') {
    problems.push(`${ENV_KEYS['tls.enabled']}: must be true or false`);
  }
  security.tls.enabled = tlsFlag === 'true' || (tlsFlag !== 'false' && anyFile);
  for (const [field, value] of Object.entries(files)) {
    if (value !== undefined && value !== '') security.tls[field as 'caFile' | 'certFile' | 'keyFile'] = value;
  }
  const mechanism = (env[ENV_KEYS['sasl.mechanism']] ?? '').toLowerCase();
  if (mechanism !== '') security.sasl.mechanism = mechanism as SaslMechanism;
  security.sasl.username = env[ENV_KEYS['sasl.username']] ?? '';
  const passwordFile = env[KAFKA_SASL_PASSWORD_FILE_ENV];
  const inline = env[ENV_KEYS['sasl.password']];
  if (passwordFile && inline) {
    problems.push(`${KAFKA_SASL_PASSWORD_FILE_ENV}: set it or ${ENV_KEYS['sasl.password']}, not both`);
  } else if (passwordFile) {
    try {
      security.sasl.password = new Secret(readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, ''));
    } catch (err) {
      problems.push(
        `${KAFKA_SASL_PASSWORD_FILE_ENV}: cannot read ${passwordFile} (${(err as NodeJS.ErrnoException).code})`,
      );
    }
  } else if (inline) {
    security.sasl.password = new Secret(inline);
  }
  problems.push(...kafkaSecurityProblems(security, kafkaSecurityEnvKey));
  return { security, problems };
}

/** A security section of a config file (YAML/JSON: the password a plain string) as typed settings. */
export function kafkaSecurityOf(input: unknown, base: KafkaSecurity = defaultKafkaSecurity()): KafkaSecurity {
  const i = (typeof input === 'object' && input !== null ? input : {}) as {
    tls?: Partial<KafkaTlsSettings>;
    sasl?: { mechanism?: string; username?: string; password?: unknown };
  };
  const password = i.sasl?.password;
  return {
    tls: { ...base.tls, ...(i.tls ?? {}) },
    sasl: {
      ...base.sasl,
      ...(i.sasl?.mechanism !== undefined ? { mechanism: i.sasl.mechanism.toLowerCase() as SaslMechanism } : {}),
      ...(i.sasl?.username !== undefined ? { username: i.sasl.username } : {}),
      ...(password instanceof Secret
        ? { password }
        : password !== undefined
          ? { password: new Secret(String(password)) }
          : {}),
    },
  };
}
