/**
 * `tooltrail migrate`: the ClickHouse schema's numbered migrations (schema/README.md). The options are declared
 * here; what the command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import type { MigrateFlags } from './run.ts';

const run = () => import('./run.ts');

export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description('apply the ClickHouse schema migrations (idempotent; records applied versions)')
    .option('--down <steps>', 'revert the newest N applied migrations', (v) => Number.parseInt(v, 10))
    .option('--print', 'print the rendered DDL instead of running it (e.g. the cluster variant)')
    .action(async (flags: MigrateFlags) => (await run()).migrate(flags));
}
