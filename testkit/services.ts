/**
 * Test access to the real services. A missing service FAILS the test with a message naming it and how to start
 * it: a test that silently skips is a defect.
 */
import { randomBytes } from 'node:crypto';
import { type ClickHouseClient, clickHouseOf, pingClickHouse } from '../platform/clickhouse.ts';
import { createKafkaClient, describeCluster, type KafkaClient, type KafkaClientKind } from '../platform/kafka/index.ts';
import { DEFAULT_RETENTION_DAYS, type SchemaConfig } from '../schema/config.ts';
import { dropDatabase, migrateUp } from '../schema/migrations.ts';
import { alertmanagerReady } from '../services/alertmanager/alertmanager.ts';
import { loadServicesConfig, type ServicesConfig } from '../services/config.ts';

export const services: ServicesConfig = loadServicesConfig();

const HOW = 'start it with `node bin/tooltrail.js services up` (npm test does this for you)';

export function uniqueName(prefix: string): string {
  return `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
}

// A first fetch on a loaded machine (CI runs two lanes of tests on 2 cores) can take seconds: a 2 s ping failed there.
const PING_TIMEOUT_MS = 15_000;

export async function requireClickHouse(): Promise<void> {
  if (!(await pingClickHouse(services.clickhouse.url, PING_TIMEOUT_MS))) {
    throw new Error(`ClickHouse is not reachable at ${services.clickhouse.url}: ${HOW}`);
  }
}

/** A client of the shared broker: of `client`, else the one TOOLTRAIL_KAFKA_CLIENT chooses. */
export async function requireKafka(client?: KafkaClientKind): Promise<KafkaClient> {
  const brokers = services.kafka.brokers;
  const kafka = createKafkaClient({ brokers, clientId: 'tooltrail-test', quiet: true, ...(client ? { client } : {}) });
  try {
    await describeCluster(
      createKafkaClient({
        brokers,
        clientId: 'tooltrail-test-probe',
        retries: 0,
        quiet: true,
        ...(client ? { client } : {}),
      }),
    );
  } catch {
    throw new Error(`Kafka is not reachable at ${services.kafka.brokers.join(',')}: ${HOW}`);
  }
  return kafka;
}

export async function requireAlertmanager(): Promise<string> {
  if (!(await alertmanagerReady(services.alertmanager.url))) {
    throw new Error(`Alertmanager is not reachable at ${services.alertmanager.url}: ${HOW}`);
  }
  return services.alertmanager.url;
}

export interface TestDatabase {
  ch: ClickHouseClient;
  schema: SchemaConfig;
  database: string;
  drop(): Promise<void>;
}

/**
 * A fresh database with every migration applied; `drop()` removes it and closes the client. A `retentionDays` long
 * enough keeps rows of fixed old times (the tables' TTL).
 */
export async function freshDatabase(prefix = 'tt_test', o: { retentionDays?: number } = {}): Promise<TestDatabase> {
  await requireClickHouse();
  const database = uniqueName(prefix);
  const schema: SchemaConfig = { database, retentionDays: o.retentionDays ?? DEFAULT_RETENTION_DAYS };
  const ch = clickHouseOf(services.clickhouse);
  await migrateUp(ch, schema);
  return {
    ch,
    schema,
    database,
    async drop() {
      await dropDatabase(ch, database);
      await ch.close();
    },
  };
}

/** The PostgreSQL the SQL adapter's tests use; fails with how to install and start it. */
export async function requirePostgres(): Promise<string> {
  const { postgresReady } = await import('../services/postgres/postgres.ts');
  if (!(await postgresReady(services.postgres.url, services.postgres.port))) {
    throw new Error(
      `PostgreSQL is not reachable at ${services.postgres.url}: install it (\`apt-get install postgresql\`; .ci/run does) and ${HOW}`,
    );
  }
  return services.postgres.url;
}
