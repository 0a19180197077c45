/**
 * `tooltrail alerts | findings | owners | warnings`: the evaluator, the current findings, the owners and the
 * warning lifecycle. Every option is declared here; what a command does loads when it runs (run.ts), so that
 * `--help` loads none of it. Output goes through `io.out` so tests can read exactly what a user would.
 */
import type { Command } from 'commander';
import { systemClock } from '../../../alerts/clock.ts';
import { SUBJECT_KINDS } from '../../../alerts/owners/subject-kinds.ts';
import type { AckFlags, AlertsCliIo, EvaluateFlags, OwnerSetFlags, RemoveFlags, ScopeFlags } from './run.ts';

const defaultIo: AlertsCliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
  clock: systemClock,
};

const run = () => import('./run.ts');

/** Registers `alerts`, `findings`, `owners` and `warnings` on the tooltrail program. */
export function registerAlertsCommands(program: Command, io: AlertsCliIo = defaultIo): void {
  program
    .command('alerts')
    .description('run the detectors on a schedule and page owners through Alertmanager (Ctrl-C stops)')
    .option('--once', 'evaluate once and exit')
    .option('--interval <duration>', 'time between evaluations (default 60s; TOOLTRAIL_ALERTS_INTERVAL)')
    .option('--tenant <tenant>', 'only this tenant (default: every tenant; TOOLTRAIL_ALERTS_TENANT)')
    .option(
      '--pending-period <duration>',
      'page a finding only once it has been found for this long, like Prometheus `for` (default 0; TOOLTRAIL_ALERTS_PENDING_PERIOD)',
    )
    .option('--json', 'print each evaluation report as a JSON line')
    .action(async (opts: EvaluateFlags) => (await run()).evaluate(io, opts));

  program
    .command('findings')
    .description('print what the detectors find now (read-only: nothing is paged or recorded)')
    .option('--since <duration>', 'judge mutations of this last period (default: alerts.findingActiveSeconds, 24h)')
    .option('--token <token>', "a read token (TOOLTRAIL_API_TOKEN): its tenant's findings only")
    .option('--tenant <tenant>', 'only this tenant')
    .option('--all-tenants', 'every tenant (operator)')
    .option('--json', 'print a JSON array (schema: alerts/findings/finding.schema.json)')
    .action(async (opts: ScopeFlags & { since?: string; json?: boolean }) => (await run()).findings(io, opts));

  const owners = program.command('owners').description('who owns tools, agents and warnings (who gets paged)');
  owners
    .command('set <kind> <subject>')
    .description(`assign an owner; kind is ${SUBJECT_KINDS.join(' | ')} (warning: subject = code or *, with --source)`)
    .requiredOption('--owner <owner>', 'the Alertmanager `owner` label value')
    .option('--team <team>', 'the Alertmanager `team` label value', '')
    .option('--source <source>', 'warnings: the warning source', '')
    .option('--tenant <tenant>', 'only for this tenant (default: every tenant)', '')
    .option('--by <who>', 'who makes the change (default: $TOOLTRAIL_USER or the OS user)')
    .requiredOption('--reason <why>', 'why (kept in the change log)')
    .action(async (kind: string, subject: string, o: OwnerSetFlags) => (await run()).ownersSet(io, kind, subject, o));
  owners
    .command('remove <kind> <subject>')
    .description('remove an owner (its alerts go to escalation again)')
    .option('--source <source>', 'warnings: the warning source', '')
    .option('--tenant <tenant>', 'the tenant the assignment was for (default: every tenant)', '')
    .option('--by <who>', 'who makes the change')
    .requiredOption('--reason <why>', 'why (kept in the change log)')
    .action(async (kind: string, subject: string, o: RemoveFlags) => (await run()).ownersRemove(io, kind, subject, o));
  owners
    .command('list')
    .description('the current owners')
    .option('--tenant <tenant>', "this tenant's and the every-tenant assignments")
    .option('--json', 'print JSON')
    .action(async (o: { tenant?: string; json?: boolean }) => (await run()).ownersList(io, o));

  const warnings = program
    .command('warnings')
    .description('warnings (code, source) with their lifecycle state, owner, days seen and next action')
    .option('--token <token>', "a read token (TOOLTRAIL_API_TOKEN): its tenant's warnings only")
    .option('--tenant <tenant>', 'only this tenant')
    .option('--all-tenants', 'every tenant (operator)')
    .option('--json', 'print JSON')
    .action(async (o: ScopeFlags & { json?: boolean }) => (await run()).warningsList(io, o));
  // `warnings` has a --tenant of its own, and commander hands it the option wherever it is written: a subcommand's
  // --tenant arrives there.
  const parent = () => warnings.opts() as ScopeFlags & { json?: boolean };
  warnings
    .command('retire <code> <source>')
    .description('retire a warning (it stops being escalated or reminded; it comes back if seen again)')
    .option('--tenant <tenant>', 'the tenant (default: the only tenant where it was seen)')
    .option('--by <who>', 'who retires it')
    .requiredOption('--reason <why>', 'why (kept in the change log)')
    .action(async (code: string, source: string, o: { tenant?: string; by?: string; reason: string }) =>
      (await run()).warningsRetire(io, code, source, { ...o, tenant: o.tenant ?? parent().tenant }),
    );
  warnings
    .command('ack <code> <source>')
    .description('acknowledge a warning: someone owns the fix, until a due date')
    .option('--tenant <tenant>', 'the tenant (default: the only tenant where it was seen)')
    .option('--due <duration>', 'when the fix is due, from now (default: alerts.warnings.remindAfterDays)')
    .option('--owner <owner>', 'also make this the owner of the (code, source) pair')
    .option('--team <team>', 'the team of --owner', '')
    .option('--by <who>', 'who acknowledges')
    .requiredOption('--reason <why>', 'why (kept in the change log)')
    .action(async (code: string, source: string, o: AckFlags) =>
      (await run()).warningsAck(io, code, source, { ...o, tenant: o.tenant ?? parent().tenant }),
    );
  warnings
    .command('history [code] [source]')
    .description('the lifecycle change log (who, when, why)')
    .option('--token <token>', "a read token (TOOLTRAIL_API_TOKEN): its tenant's changes only")
    .option('--tenant <tenant>', 'the tenant of code/source')
    .option('--all-tenants', 'every tenant (operator)')
    .option('--json', 'print JSON')
    // `warnings` declares the same options, and commander gives them to it wherever they are written.
    .action(async (code: string | undefined, source: string | undefined, own: ScopeFlags & { json?: boolean }) =>
      (await run()).warningsHistory(io, code, source, { ...parent(), ...own }),
    );
}
