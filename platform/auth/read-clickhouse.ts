/**
 * The read side's ClickHouse connection (reconstruction API and CLI, verify, findings, warnings). With
 * TOOLTRAIL_CLICKHOUSE_READ_USER set it connects as that account, whose server profile must be read-only (see
 * dashboards/clickhouse/users.d/tooltrail-grafana.xml for one); without it, it connects as the writer account but
 * asks for `readonly = 2` on every query, so a read path can never INSERT, ALTER, CREATE, DROP or TRUNCATE even
 * if a bug sent it such a statement. (Not sent with a read user: its profile already fixes `readonly`, and a
 * server refuses a client that tries to set it again.)
 */
import { type ClickHouseClient, createClickHouse } from '../clickhouse.ts';
import type { ClickHouseTls } from '../connections.ts';
import { Secret } from '../secret.ts';

export const READ_USER_ENV = 'TOOLTRAIL_CLICKHOUSE_READ_USER';
export const READ_PASSWORD_ENV = 'TOOLTRAIL_CLICKHOUSE_READ_PASSWORD';

export interface ReadClickHouseTarget {
  url: string;
  /** The writer account, used (read-only) when no read user is configured. */
  user: string;
  password: Secret | string;
  tls?: ClickHouseTls;
}

export interface ReadClickHouseSettings {
  user: string;
  password: Secret;
  settings: Record<string, string | number>;
}

/** Which account and settings the read side uses. */
export function readClickHouseSettings(target: ReadClickHouseTarget, env: NodeJS.ProcessEnv): ReadClickHouseSettings {
  const readUser = env[READ_USER_ENV];
  if (readUser) return { user: readUser, password: new Secret(env[READ_PASSWORD_ENV] ?? ''), settings: {} };
  const password = target.password instanceof Secret ? target.password : new Secret(target.password);
  return { user: target.user, password, settings: { readonly: 2 } };
}

export function createReadClickHouse(target: ReadClickHouseTarget, env: NodeJS.ProcessEnv): ClickHouseClient {
  return createClickHouse({
    url: target.url,
    ...(target.tls ? { tls: target.tls } : {}),
    ...readClickHouseSettings(target, env),
  });
}
