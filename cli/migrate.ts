import type { Command } from 'commander';
import { createClickHouse } from '../platform/clickhouse.ts';
import { schemaConfigFromEnv } from '../schema/config.ts';
import { loadMigrations, migrateDown, migrateUp, renderSql } from '../schema/migrations.ts';
import { loadServicesConfig } from '../services/config.ts';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply the ClickHouse schema migrations (idempotent; records applied versions)')
    .option('--down <steps>', 'revert the newest N applied migrations', (v) => Number.parseInt(v, 10))
    .option('--print', 'print the rendered DDL instead of running it (e.g. the cluster variant)')
    .action(async (opts: { down?: number; print?: boolean }) => {
      const schema = schemaConfigFromEnv();
      if (opts.print) {
        for (const m of loadMigrations()) console.log(`-- ${m.version}_${m.name}\n${renderSql(m.up, schema)};\n`);
        return;
      }
      const svc = loadServicesConfig();
      const ch = createClickHouse({
        url: svc.clickhouse.url,
        user: svc.clickhouse.user,
        password: svc.clickhouse.password,
      });
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
    });
}
