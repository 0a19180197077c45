/**
 * Where the pipeline's services are: the Kafka brokers, the ClickHouse server and Alertmanager that collector,
 * ingest and alerts connect to. A user's own (external) when TOOLTRAIL_KAFKA_BROKERS / TOOLTRAIL_CLICKHOUSE_URL /
 * TOOLTRAIL_ALERTMANAGER_URL are set, else the local ones `tooltrail services up` starts on the configured ports.
 * Parsed once, from the environment, with a schema; every bad key is reported at once.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { z } from 'zod';
import { ConfigError } from './config-error.ts';
import { DEFAULT_KAFKA_CLIENT } from './kafka/choice.ts';
import { type KafkaSecurity, kafkaSecurityFromEnv } from './kafka/security.ts';
import { KAFKA_CLIENTS, type KafkaClientKind } from './kafka/types.ts';
import { Secret } from './secret.ts';

export const DEFAULT_KAFKA_PORT = 9092;
export const DEFAULT_CLICKHOUSE_PORT = 8123;
/** Not Alertmanager's usual 9093: that is Kafka's usual controller port. */
export const DEFAULT_ALERTMANAGER_PORT = 9193;
/** How far above TOOLTRAIL_KAFKA_PORT the extra local brokers' ports start (9102, 9104, ... by default). */
export const KAFKA_CLUSTER_PORT_OFFSET = 10;
export const MAX_LOCAL_KAFKA_BROKERS = 9;
/** The topic the collector writes spans to and the ingest reads them from (standard OTLP protobuf messages). */
export const DEFAULT_SPANS_TOPIC = 'otlp_spans';
/** Where the ingest puts the messages it cannot store, for `tooltrail dlq` to list and replay. */
export const DEFAULT_DEAD_LETTER_TOPIC = `${DEFAULT_SPANS_TOPIC}_dlq`;
/** Partitions of the spans topic when the collector or the ingest creates it. */
export const DEFAULT_SPANS_TOPIC_PARTITIONS = 3;

export type ServiceMode = 'local' | 'external';

/** TLS of the ClickHouse connection (an `https://` URL): a private CA, and a client certificate for mTLS. */
export interface ClickHouseTls {
  caFile?: string;
  certFile?: string;
  keyFile?: string;
}

export interface ConnectionSettings {
  kafka: {
    mode: ServiceMode;
    brokers: string[];
    port: number;
    /** Local brokers `services up` runs (1 = the single-node default). */
    brokerCount: number;
    /** Broker i >= 2 listens on clusterPortBase + 2(i-2), its controller on the port above. */
    clusterPortBase: number;
    /** TLS and SASL to the brokers (TOOLTRAIL_KAFKA_TLS*, TOOLTRAIL_KAFKA_SASL_*). */
    security: KafkaSecurity;
    /** The client library (TOOLTRAIL_KAFKA_CLIENT). */
    client: KafkaClientKind;
  };
  clickhouse: {
    mode: ServiceMode;
    url: string;
    port: number;
    user: string;
    password: Secret;
    tls: ClickHouseTls;
  };
  alertmanager: { mode: ServiceMode; url: string; port: number };
}

const port = z.coerce.number().int().min(1).max(65535);

/** The environment keys of the connection settings (the dev services extend it with their own). */
export const ConnectionEnvSchema = z.object({
  TOOLTRAIL_KAFKA_BROKERS: z.string().optional(),
  TOOLTRAIL_KAFKA_PORT: port.default(DEFAULT_KAFKA_PORT),
  TOOLTRAIL_KAFKA_BROKER_COUNT: z.coerce.number().int().min(1).max(MAX_LOCAL_KAFKA_BROKERS).default(1),
  TOOLTRAIL_KAFKA_CLUSTER_PORT_BASE: port.optional(),
  TOOLTRAIL_KAFKA_CLIENT: z
    .enum(KAFKA_CLIENTS, { error: `must be one of ${KAFKA_CLIENTS.join(', ')}` })
    .default(DEFAULT_KAFKA_CLIENT),
  TOOLTRAIL_CLICKHOUSE_URL: z.url().optional(),
  TOOLTRAIL_CLICKHOUSE_PORT: port.default(DEFAULT_CLICKHOUSE_PORT),
  TOOLTRAIL_CLICKHOUSE_USER: z.string().default('default'),
  TOOLTRAIL_CLICKHOUSE_PASSWORD: z.string().default(''),
  TOOLTRAIL_CLICKHOUSE_PASSWORD_FILE: z.string().min(1).optional(),
  TOOLTRAIL_CLICKHOUSE_CA_FILE: z.string().min(1).optional(),
  TOOLTRAIL_CLICKHOUSE_CERT_FILE: z.string().min(1).optional(),
  TOOLTRAIL_CLICKHOUSE_KEY_FILE: z.string().min(1).optional(),
  TOOLTRAIL_ALERTMANAGER_URL: z.url().optional(),
  TOOLTRAIL_ALERTMANAGER_PORT: port.default(DEFAULT_ALERTMANAGER_PORT),
});
export type ConnectionEnv = z.infer<typeof ConnectionEnvSchema>;

export { ConfigError };

/** Parses `env` with `schema`; throws one ConfigError naming every bad key, with `more` problems found elsewhere. */
export function parseEnv<S extends z.ZodType>(
  schema: S,
  env: NodeJS.ProcessEnv,
  what: string,
  more: string[] = [],
): z.infer<S> {
  const parsed = schema.safeParse(env);
  const problems = [...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`))];
  problems.push(...more);
  if (!parsed.success || problems.length > 0) {
    throw new ConfigError(`invalid ${what} configuration: ${problems.join('; ')}`);
  }
  return parsed.data;
}

/** What the environment says beyond its schema (files to read, TLS and SASL); every problem naming its key. */
export interface ConnectionExtras {
  kafkaSecurity: KafkaSecurity;
  clickhousePassword: Secret;
  problems: string[];
}

function readable(key: string, path: string | undefined, problems: string[]): void {
  if (path === undefined) return;
  try {
    accessSync(path, constants.R_OK);
  } catch (err) {
    problems.push(`${key}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export function connectionExtrasOf(env: NodeJS.ProcessEnv): ConnectionExtras {
  const { security, problems } = kafkaSecurityFromEnv(env);
  let clickhousePassword = new Secret(env.TOOLTRAIL_CLICKHOUSE_PASSWORD ?? '');
  const passwordFile = env.TOOLTRAIL_CLICKHOUSE_PASSWORD_FILE;
  if (passwordFile && env.TOOLTRAIL_CLICKHOUSE_PASSWORD) {
    problems.push('TOOLTRAIL_CLICKHOUSE_PASSWORD_FILE: set it or TOOLTRAIL_CLICKHOUSE_PASSWORD, not both');
  } else if (passwordFile) {
    try {
      clickhousePassword = new Secret(readFileSync(passwordFile, 'utf8').replace(/\r?\n$/, ''));
    } catch (err) {
      problems.push(
        `TOOLTRAIL_CLICKHOUSE_PASSWORD_FILE: cannot read ${passwordFile} (${(err as NodeJS.ErrnoException).code})`,
      );
    }
  }
  for (const key of [
    'TOOLTRAIL_CLICKHOUSE_CA_FILE',
    'TOOLTRAIL_CLICKHOUSE_CERT_FILE',
    'TOOLTRAIL_CLICKHOUSE_KEY_FILE',
  ]) {
    readable(key, env[key] || undefined, problems);
  }
  if (!env.TOOLTRAIL_CLICKHOUSE_CERT_FILE !== !env.TOOLTRAIL_CLICKHOUSE_KEY_FILE) {
    const missing = env.TOOLTRAIL_CLICKHOUSE_CERT_FILE
      ? 'TOOLTRAIL_CLICKHOUSE_KEY_FILE'
      : 'TOOLTRAIL_CLICKHOUSE_CERT_FILE';
    problems.push(
      `${missing}: a client certificate needs both TOOLTRAIL_CLICKHOUSE_CERT_FILE and TOOLTRAIL_CLICKHOUSE_KEY_FILE`,
    );
  }
  const tlsKeys = ['TOOLTRAIL_CLICKHOUSE_CA_FILE', 'TOOLTRAIL_CLICKHOUSE_CERT_FILE'].filter((k) => env[k]);
  if (tlsKeys.length > 0 && !(env.TOOLTRAIL_CLICKHOUSE_URL ?? '').startsWith('https://')) {
    problems.push(`${tlsKeys[0]}: is set but TOOLTRAIL_CLICKHOUSE_URL is not an https:// URL`);
  }
  return { kafkaSecurity: security, clickhousePassword, problems };
}

/** The broker ports of a local cluster: node 1 on `port`, node i >= 2 on `base + 2(i-2)` (its controller above). */
export function localBrokerPorts(port: number, count: number, base: number): number[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? port : base + 2 * (i - 1)));
}

/** The connection settings of already-parsed environment keys. */
export function connectionSettingsOf(e: ConnectionEnv, extras: ConnectionExtras): ConnectionSettings {
  const brokers = e.TOOLTRAIL_KAFKA_BROKERS?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  const clusterPortBase = e.TOOLTRAIL_KAFKA_CLUSTER_PORT_BASE ?? e.TOOLTRAIL_KAFKA_PORT + KAFKA_CLUSTER_PORT_OFFSET;
  const local = localBrokerPorts(e.TOOLTRAIL_KAFKA_PORT, e.TOOLTRAIL_KAFKA_BROKER_COUNT, clusterPortBase);
  return {
    kafka: {
      mode: brokers?.length ? 'external' : 'local',
      brokers: brokers?.length ? brokers : local.map((p) => `127.0.0.1:${p}`),
      port: e.TOOLTRAIL_KAFKA_PORT,
      brokerCount: e.TOOLTRAIL_KAFKA_BROKER_COUNT,
      clusterPortBase,
      security: extras.kafkaSecurity,
      client: e.TOOLTRAIL_KAFKA_CLIENT,
    },
    clickhouse: {
      mode: e.TOOLTRAIL_CLICKHOUSE_URL ? 'external' : 'local',
      url: e.TOOLTRAIL_CLICKHOUSE_URL ?? `http://127.0.0.1:${e.TOOLTRAIL_CLICKHOUSE_PORT}`,
      port: e.TOOLTRAIL_CLICKHOUSE_PORT,
      user: e.TOOLTRAIL_CLICKHOUSE_USER,
      password: extras.clickhousePassword,
      tls: {
        ...(e.TOOLTRAIL_CLICKHOUSE_CA_FILE ? { caFile: e.TOOLTRAIL_CLICKHOUSE_CA_FILE } : {}),
        ...(e.TOOLTRAIL_CLICKHOUSE_CERT_FILE ? { certFile: e.TOOLTRAIL_CLICKHOUSE_CERT_FILE } : {}),
        ...(e.TOOLTRAIL_CLICKHOUSE_KEY_FILE ? { keyFile: e.TOOLTRAIL_CLICKHOUSE_KEY_FILE } : {}),
      },
    },
    alertmanager: {
      mode: e.TOOLTRAIL_ALERTMANAGER_URL ? 'external' : 'local',
      url: e.TOOLTRAIL_ALERTMANAGER_URL ?? `http://127.0.0.1:${e.TOOLTRAIL_ALERTMANAGER_PORT}`,
      port: e.TOOLTRAIL_ALERTMANAGER_PORT,
    },
  };
}

/** The connection settings from the environment; every bad key reported at once. */
export function loadConnectionSettings(env: NodeJS.ProcessEnv = process.env): ConnectionSettings {
  const extras = connectionExtrasOf(env);
  return connectionSettingsOf(parseEnv(ConnectionEnvSchema, env, 'services', extras.problems), extras);
}
