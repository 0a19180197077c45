/** What `tooltrail migrate` does (declared in command.ts, loaded when it runs). */
import { clickHouseOf } from '../../../platform/clickhouse.ts';
import { schemaConfigFromEnv } from '../../../schema/config.ts';
import {
  distributedStatements,
  loadMigrations,
  migrateDown,
  migrateUp,
  renderSql,
} from '../../../schema/migrations.ts';
import { loadServicesConfig } from '../../../services/config.ts';

export interface MigrateFlags {
  down?: number;
  print?: boolean;
}

/** `tooltrail migrate [--down N | --print]`. */
export async function migrate(opts: MigrateFlags): Promise<void> {
  const schema = schemaConfigFromEnv();
  if (opts.print) {
    for (const m of loadMigrations()) console.log(`-- ${m.version}_${m.name}\n${renderSql(m.up, schema)};\n`);
    const distributed = distributedStatements(schema);
    if (distributed.length)
      console.log(`-- Distributed tables (schema/cluster/distributed.sql)\n${distributed.join(';\n')};`);
    return;
  }
  const svc = loadServicesConfig();
  const ch = clickHouseOf(svc.clickhouse);
  try {
    if (opts.down !== undefined) {
      const reverted = await migrateDown(ch, schema, opts.down);
      console.log(`reverted: ${reverted.join(', ') || 'nothing'}`);
    } else {
      const r = await migrateUp(ch, schema);
      console.log(
        `database ${schema.database}: applied ${r.applied.length ? r.applied.join(', ') : 'nothing'}; already applied ${r.alreadyApplied.length}`,
      );
    }
  } finally {
    await ch.close();
  }
}
