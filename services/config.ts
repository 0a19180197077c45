/**
 * The local dev services `tooltrail services up` starts: the connection settings (platform/connections.ts) plus
 * what only the launchers need (their home folder, Kafka's controller port and version, the webhook sink the
 * generated Alertmanager config pages, a user's own Alertmanager config file), and PostgreSQL, which no stage uses:
 * only the SQL adapter's tests do.
 */
import { resolve } from 'node:path';
import { z } from 'zod';
import {
  ConnectionEnvSchema,
  type ConnectionSettings,
  connectionExtrasOf,
  connectionSettingsOf,
  parseEnv,
} from '../platform/connections.ts';

export const DEFAULT_KAFKA_CONTROLLER_PORT = 9093;
/** The local broker's SASL_SSL listener (`services up --kafka-sasl-ssl`), beside its PLAINTEXT and controller ports. */
export const DEFAULT_KAFKA_SASL_SSL_PORT = 9094;
/** Where the local Alertmanager's webhook receivers post pages (a sink run by tests or `tooltrail up`). */
export const DEFAULT_WEBHOOK_PORT = 9199;
/** Not PostgreSQL's usual 5432, so that a system PostgreSQL keeps its port; change it with TOOLTRAIL_POSTGRES_PORT. */
export const DEFAULT_POSTGRES_PORT = 9432;
/** The local cluster's superuser (trust authentication on loopback only). */
export const POSTGRES_SUPERUSER = 'tooltrail';
export const DEFAULT_HOME = '.tooltrail';
/** Pinned in services/kafka/pom.xml too; the cache folder is named after it. */
export const KAFKA_VERSION = '4.1.1';

export interface ServicesConfig {
  /** Folder holding data, logs, pid files and the cached Kafka jars (ignored by git). */
  home: string;
  /** Each service is `local` (started by `services up`) or `external` (the user's own; nothing is started). */
  kafka: ConnectionSettings['kafka'] & {
    controllerPort: number;
    /** An extra SASL_SSL listener on the local broker (tests of TLS and SASL; absent: PLAINTEXT only). */
    saslSsl?: KafkaSaslSslListener;
    /** Asked for by TOOLTRAIL_KAFKA_SASL_SSL=true (`services up --kafka-sasl-ssl`): the port of the listener
     * services/kafka/sasl-ssl.ts prepares. */
    saslSslPort?: number;
  };
  clickhouse: ConnectionSettings['clickhouse'];
  alertmanager: ConnectionSettings['alertmanager'] & {
    /** Base URL of the webhook receivers the generated config pages (`/owner`, `/escalation`). */
    webhookUrl: string;
    /** A user's own Alertmanager config file for the local instance, instead of the generated one. */
    configFile?: string;
  };
  /** A local cluster (initdb under `home`), or the user's own server (TOOLTRAIL_POSTGRES_URL). */
  postgres: { mode: 'local' | 'external'; url: string; port: number; user: string };
}

/**
 * A SASL_SSL listener of the local broker, as a managed Kafka serves: TLS with the given server certificate,
 * SASL PLAIN and SCRAM-SHA-256/512 users, and client certificates required when `clientCaFile` is set (mTLS).
 */
export interface KafkaSaslSslListener {
  port: number;
  /** PEM server certificate (chain) and its unencrypted PKCS#8 key. */
  certFile: string;
  keyFile: string;
  /** CA of the client certificates the broker accepts; set: clients must present one. */
  clientCaFile?: string;
  /** PLAIN users, name to password (the broker's JAAS config). */
  plainUsers: Record<string, string>;
  /** SCRAM users, created after the broker is up through its admin API (kafka-configs). */
  scramUsers: { name: string; password: string; mechanism: 'SCRAM-SHA-256' | 'SCRAM-SHA-512' }[];
}

const port = z.coerce.number().int().min(1).max(65535);

const EnvSchema = ConnectionEnvSchema.extend({
  TOOLTRAIL_HOME: z.string().min(1).default(DEFAULT_HOME),
  TOOLTRAIL_KAFKA_CONTROLLER_PORT: port.default(DEFAULT_KAFKA_CONTROLLER_PORT),
  TOOLTRAIL_KAFKA_SASL_SSL: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  TOOLTRAIL_KAFKA_SASL_SSL_PORT: port.default(DEFAULT_KAFKA_SASL_SSL_PORT),
  TOOLTRAIL_WEBHOOK_URL: z.url().optional(),
  TOOLTRAIL_ALERTMANAGER_CONFIG: z.string().min(1).optional(),
  TOOLTRAIL_POSTGRES_URL: z.url().optional(),
  TOOLTRAIL_POSTGRES_PORT: port.default(DEFAULT_POSTGRES_PORT),
});

/** Reads the services configuration from the environment; reports every bad key at once. */
export function loadServicesConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ServicesConfig {
  const extras = connectionExtrasOf(env);
  const e = parseEnv(EnvSchema, env, 'services', extras.problems);
  const connections = connectionSettingsOf(e, extras);
  return {
    home: resolve(cwd, e.TOOLTRAIL_HOME),
    kafka: {
      ...connections.kafka,
      controllerPort: e.TOOLTRAIL_KAFKA_CONTROLLER_PORT,
      ...(e.TOOLTRAIL_KAFKA_SASL_SSL === 'true' ? { saslSslPort: e.TOOLTRAIL_KAFKA_SASL_SSL_PORT } : {}),
    },
    clickhouse: connections.clickhouse,
    alertmanager: {
      ...connections.alertmanager,
      webhookUrl: e.TOOLTRAIL_WEBHOOK_URL ?? `http://127.0.0.1:${DEFAULT_WEBHOOK_PORT}`,
      ...(e.TOOLTRAIL_ALERTMANAGER_CONFIG ? { configFile: resolve(cwd, e.TOOLTRAIL_ALERTMANAGER_CONFIG) } : {}),
    },
    postgres: {
      mode: e.TOOLTRAIL_POSTGRES_URL ? 'external' : 'local',
      url:
        e.TOOLTRAIL_POSTGRES_URL ?? `postgres://${POSTGRES_SUPERUSER}@127.0.0.1:${e.TOOLTRAIL_POSTGRES_PORT}/postgres`,
      port: e.TOOLTRAIL_POSTGRES_PORT,
      user: e.TOOLTRAIL_POSTGRES_URL
        ? decodeURIComponent(new URL(e.TOOLTRAIL_POSTGRES_URL).username)
        : POSTGRES_SUPERUSER,
    },
  };
}
