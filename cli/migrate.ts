import type { Command } from 'commander';

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply the ClickHouse schema migrations (idempotent; records applied versions)')
    .option('--down <steps>', 'revert the newest N applied migrations', (v) => Number.parseInt(v, 10))
    .option('--print', 'print the rendered DDL instead of running it (e.g. the cluster variant)')
    .action(async (opts: { down?: number; print?: boolean }) => {
      // Loaded when the command runs, so that `tooltrail --help` and the other commands do not pay for it.
      const { clickHouseOf } = await import('../platform/clickhouse.ts');
      const { schemaConfigFromEnv } = await import('../schema/config.ts');
      const { distributedStatements, loadMigrations, migrateDown, migrateUp, renderSql } = await import(
        '../schema/migrations.ts'
      );
      const { loadServicesConfig } = await import('../services/config.ts');
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
    });
}
