/**
 * Where the three services live: started locally by `tooltrail services up`, or external (a user's own Kafka
 * cluster, ClickHouse server, Alertmanager) when their URL/brokers are configured. Parsed once, from the
 * environment, with a schema; the rest of the code receives typed values.
 */
import { resolve } from 'node:path';
import { z } from 'zod';

export const DEFAULT_KAFKA_PORT = 9092;
export const DEFAULT_KAFKA_CONTROLLER_PORT = 9093;
export const DEFAULT_CLICKHOUSE_PORT = 8123;
/** Not Alertmanager's usual 9093: that is Kafka's usual controller port. */
export const DEFAULT_ALERTMANAGER_PORT = 9193;
/** Where the local Alertmanager's webhook receivers post pages (a sink run by tests or `tooltrail up`). */
export const DEFAULT_WEBHOOK_PORT = 9199;
export const DEFAULT_HOME = '.tooltrail';
/** Pinned in services/kafka/pom.xml too; the cache folder is named after it. */
export const KAFKA_VERSION = '4.1.1';

export interface ServicesConfig {
  /** Folder holding data, logs, pid files and the cached Kafka jars (ignored by git). */
  home: string;
  kafka: {
    /** `local`: started by `services up`. `external`: brokers given by the user; nothing is started. */
    mode: 'local' | 'external';
    brokers: string[];
    port: number;
    controllerPort: number;
  };
  clickhouse: { mode: 'local' | 'external'; url: string; port: number; user: string; password: string };
  alertmanager: {
    mode: 'local' | 'external';
    url: string;
    port: number;
    /** Base URL of the webhook receivers the generated config pages (`/owner`, `/escalation`). */
    webhookUrl: string;
    /** A user's own Alertmanager config file for the local instance, instead of the generated one. */
    configFile?: string;
  };
}

const port = z.coerce.number().int().min(1).max(65535);

const EnvSchema = z.object({
  TOOLTRAIL_HOME: z.string().min(1).default(DEFAULT_HOME),
  TOOLTRAIL_KAFKA_BROKERS: z.string().optional(),
  TOOLTRAIL_KAFKA_PORT: port.default(DEFAULT_KAFKA_PORT),
  TOOLTRAIL_KAFKA_CONTROLLER_PORT: port.default(DEFAULT_KAFKA_CONTROLLER_PORT),
  TOOLTRAIL_CLICKHOUSE_URL: z.url().optional(),
  TOOLTRAIL_CLICKHOUSE_PORT: port.default(DEFAULT_CLICKHOUSE_PORT),
  TOOLTRAIL_CLICKHOUSE_USER: z.string().default('default'),
  TOOLTRAIL_CLICKHOUSE_PASSWORD: z.string().default(''),
  TOOLTRAIL_ALERTMANAGER_URL: z.url().optional(),
  TOOLTRAIL_ALERTMANAGER_PORT: port.default(DEFAULT_ALERTMANAGER_PORT),
  TOOLTRAIL_WEBHOOK_URL: z.url().optional(),
  TOOLTRAIL_ALERTMANAGER_CONFIG: z.string().min(1).optional(),
});

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads the services configuration from the environment; reports every bad key at once. */
export function loadServicesConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): ServicesConfig {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new ConfigError(`invalid services configuration: ${problems}`);
  }
  const e = parsed.data;
  const brokers = e.TOOLTRAIL_KAFKA_BROKERS?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  return {
    home: resolve(cwd, e.TOOLTRAIL_HOME),
    kafka: {
      mode: brokers?.length ? 'external' : 'local',
      brokers: brokers?.length ? brokers : [`127.0.0.1:${e.TOOLTRAIL_KAFKA_PORT}`],
      port: e.TOOLTRAIL_KAFKA_PORT,
      controllerPort: e.TOOLTRAIL_KAFKA_CONTROLLER_PORT,
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
      webhookUrl: e.TOOLTRAIL_WEBHOOK_URL ?? `http://127.0.0.1:${DEFAULT_WEBHOOK_PORT}`,
      ...(e.TOOLTRAIL_ALERTMANAGER_CONFIG ? { configFile: resolve(cwd, e.TOOLTRAIL_ALERTMANAGER_CONFIG) } : {}),
    },
  };
}
