/**
 * Where the pipeline's services are: the Kafka brokers, the ClickHouse server and Alertmanager that collector,
 * ingest and alerts connect to. A user's own (external) when TOOLTRAIL_KAFKA_BROKERS / TOOLTRAIL_CLICKHOUSE_URL /
 * TOOLTRAIL_ALERTMANAGER_URL are set, else the local ones `tooltrail services up` starts on the configured ports.
 * Parsed once, from the environment, with a schema; every bad key is reported at once.
 */
import { z } from 'zod';

export const DEFAULT_KAFKA_PORT = 9092;
export const DEFAULT_CLICKHOUSE_PORT = 8123;
/** Not Alertmanager's usual 9093: that is Kafka's usual controller port. */
export const DEFAULT_ALERTMANAGER_PORT = 9193;
/** How far above TOOLTRAIL_KAFKA_PORT the extra local brokers' ports start (9102, 9104, ... by default). */
export const KAFKA_CLUSTER_PORT_OFFSET = 10;
export const MAX_LOCAL_KAFKA_BROKERS = 9;

export type ServiceMode = 'local' | 'external';

export interface ConnectionSettings {
  kafka: {
    mode: ServiceMode;
    brokers: string[];
    port: number;
    /** Local brokers `services up` runs (1 = the single-node default). */
    brokerCount: number;
    /** Broker i >= 2 listens on clusterPortBase + 2(i-2), its controller on the port above. */
    clusterPortBase: number;
  };
  clickhouse: { mode: ServiceMode; url: string; port: number; user: string; password: string };
  alertmanager: { mode: ServiceMode; url: string; port: number };
}

const port = z.coerce.number().int().min(1).max(65535);

/** The environment keys of the connection settings (the dev services extend it with their own). */
export const ConnectionEnvSchema = z.object({
  TOOLTRAIL_KAFKA_BROKERS: z.string().optional(),
  TOOLTRAIL_KAFKA_PORT: port.default(DEFAULT_KAFKA_PORT),
  TOOLTRAIL_KAFKA_BROKER_COUNT: z.coerce.number().int().min(1).max(MAX_LOCAL_KAFKA_BROKERS).default(1),
  TOOLTRAIL_KAFKA_CLUSTER_PORT_BASE: port.optional(),
  TOOLTRAIL_CLICKHOUSE_URL: z.url().optional(),
  TOOLTRAIL_CLICKHOUSE_PORT: port.default(DEFAULT_CLICKHOUSE_PORT),
  TOOLTRAIL_CLICKHOUSE_USER: z.string().default('default'),
  TOOLTRAIL_CLICKHOUSE_PASSWORD: z.string().default(''),
  TOOLTRAIL_ALERTMANAGER_URL: z.url().optional(),
  TOOLTRAIL_ALERTMANAGER_PORT: port.default(DEFAULT_ALERTMANAGER_PORT),
});
export type ConnectionEnv = z.infer<typeof ConnectionEnvSchema>;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses `env` with `schema`; throws one ConfigError naming every bad key. */
export function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv, what: string): z.infer<S> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid ${what} configuration: ${problems}`);
  }
  return parsed.data;
}

/** The broker ports of a local cluster: node 1 on `port`, node i >= 2 on `base + 2(i-2)` (its controller above). */
export function localBrokerPorts(port: number, count: number, base: number): number[] {
  return Array.from({ length: count }, (_, i) => (i === 0 ? port : base + 2 * (i - 1)));
}

/** The connection settings of already-parsed environment keys. */
export function connectionSettingsOf(e: ConnectionEnv): ConnectionSettings {
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
    },
    clickhouse: {
      mode: e.TOOLTRAIL_CLICKHOUSE_URL ? 'external' : 'local',
      url: e.TOOLTRAIL_CLICKHOUSE_URL ?? `http://127.0.0.1:${e.TOOLTRAIL_CLICKHOUSE_PORT}`,
      port: e.TOOLTRAIL_CLICKHOUSE_PORT,
      user: e.TOOLTRAIL_CLICKHOUSE_USER,
      password: e.TOOLTRAIL_CLICKHOUSE_PASSWORD,
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
  return connectionSettingsOf(parseEnv(ConnectionEnvSchema, env, 'services'));
}
