/**
 * What every way of running the pipeline starts first, the same way: ClickHouse (and Kafka when the pipeline uses
 * it), each started only where it is local and not already running, then the schema migrated. `tooltrail up` and
 * the demo (stack.ts, components in this process) and the soak (chaos/stack.ts, components as child processes it
 * can kill) share it.
 */
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import type { SchemaConfig } from '../../schema/config.ts';
import { dropDatabase, migrateUp } from '../../schema/migrations.ts';
import { clickhouseService } from '../../services/clickhouse/clickhouse.ts';
import type { ServicesConfig } from '../../services/config.ts';
import { kafkaService } from '../../services/kafka/kafka.ts';
import type { ManagedService } from '../../services/service.ts';

export interface StackServices {
  clickhouse: ManagedService;
  kafka?: ManagedService;
  /** The ones this call started (stopped again in reverse order by whoever stops the stack). */
  started: ManagedService[];
}

/** Brings ClickHouse, and Kafka when asked, up together; logs where each one is. */
export async function startServices(
  services: ServicesConfig,
  o: { kafka: boolean; log: (line: string) => void },
): Promise<StackServices> {
  const clickhouse = clickhouseService(services);
  const kafka = o.kafka ? kafkaService(services) : undefined;
  const started: ManagedService[] = [];
  const [ch, k] = await Promise.allSettled([clickhouse.up(), kafka?.up()]);
  if (ch.status === 'fulfilled' && ch.value.started) started.push(clickhouse);
  if (kafka && k.status === 'fulfilled' && k.value?.started) started.push(kafka);
  const failed = [ch, k].find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) {
    for (const s of started.reverse()) await s.down().catch(() => false);
    throw failed.reason;
  }
  o.log(
    started.includes(clickhouse)
      ? `clickhouse   started (embedded engine) at ${clickhouse.endpoint}`
      : `clickhouse   using ${clickhouse.endpoint}`,
  );
  if (kafka)
    o.log(
      started.includes(kafka) ? `kafka        started at ${kafka.endpoint}` : `kafka        using ${kafka.endpoint}`,
    );
  return { clickhouse, ...(kafka ? { kafka } : {}), started };
}

/** Migrates the schema (dropping the database first when `fresh`: the demo tells the same story every run). */
export async function migrateSchema(
  ch: ClickHouseClient,
  schema: SchemaConfig,
  o: { fresh?: boolean; log: (line: string) => void },
): Promise<void> {
  if (o.fresh) await dropDatabase(ch, schema.database);
  const migrated = await migrateUp(ch, schema);
  o.log(
    `schema       ${schema.database}: ${migrated.applied.length} migration(s) applied, ${migrated.alreadyApplied.length} already there`,
  );
}
