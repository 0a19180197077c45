/**
 * `tooltrail delete`: a tenant's deletion request carried out by policy. The request (who, when, which hours, why)
 * is recorded in audit_deletions, signed with the checkpoint key when one is configured, and then the rows are
 * deleted; `tooltrail verify` reports those hours as expired by policy instead of as deleted rows. The options are
 * declared here; what the command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import type { DeleteFlags } from './run.ts';

const run = () => import('./run.ts');

export function registerDeleteCommand(program: Command): void {
  program
    .command('delete')
    .description(
      "erase a tenant's rows of whole hours by a recorded deletion request (verify then reports them as expired by policy)",
    )
    .requiredOption('--tenant <tenant>', 'the tenant whose rows are erased')
    .requiredOption('--from <time>', 'first hour erased, a whole hour (ISO 8601, e.g. 2026-03-01T09:00Z)')
    .requiredOption('--to <time>', 'end of the range, exclusive, a whole hour')
    .requiredOption('--reason <why>', 'why, e.g. the request ticket')
    .option('--by <who>', 'who asked (default: $TOOLTRAIL_USER or the OS user)')
    .option('--json', 'print the recorded request as JSON')
    .action(async (flags: DeleteFlags) => (await run()).deleteAction(flags));
}
