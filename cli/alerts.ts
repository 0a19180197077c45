/**
 * `tooltrail alerts | findings | owners | warnings`: the evaluator, the current findings, the owners and the
 * warning lifecycle. Output goes through `io.out` so tests can read exactly what a user would.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { parseDurationSeconds } from '../alerts/duration.ts';
import {
  AlertsConfigError,
  type AlertsOverrides,
  acknowledgeWarning,
  addSeconds,
  alertsConfigFromEnv,
  type Clock,
  detect,
  type EvaluationReport,
  Evaluator,
  listOwners,
  removeOwner,
  retireWarning,
  reviewWarnings,
  SUBJECT_KINDS,
  type SubjectKind,
  setOwner,
  stateHistory,
  systemClock,
  warningsCommandRows,
} from '../alerts/index.ts';
import { createReadClickHouse } from '../platform/auth/read-clickhouse.ts';
import { type ReadScope, ReadScopeError, resolveReadScope, withinScope } from '../platform/auth/read-scope.ts';
import { TokenConfigError } from '../platform/auth/tokens.ts';
import { type ClickHouseClient, createClickHouse } from '../platform/clickhouse.ts';
import { sqlFiles } from '../platform/sql-files.ts';
import { schemaConfigFromEnv } from '../schema/config.ts';
import { loadServicesConfig } from '../services/config.ts';

export interface AlertsCliIo {
  /** One line of standard output (no trailing newline). */
  out(line: string): void;
  /** One line of diagnostics. */
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  clock: Clock;
}

const defaultIo: AlertsCliIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
  clock: systemClock,
};

interface Context {
  ch: ClickHouseClient;
  database: string;
}

async function withClickHouse<T>(io: AlertsCliIo, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const svc = loadServicesConfig(io.env);
  const schema = schemaConfigFromEnv(io.env);
  const ch = createClickHouse({
    url: svc.clickhouse.url,
    user: svc.clickhouse.user,
    password: svc.clickhouse.password,
    tls: svc.clickhouse.tls,
  });
  try {
    return await fn({ ch, database: schema.database });
  } finally {
    await ch.close();
  }
}

/** `findings` and `warnings` only read: the read-side account (platform/auth/read-clickhouse.ts). */
async function withReadClickHouse<T>(io: AlertsCliIo, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const ch = createReadClickHouse(loadServicesConfig(io.env).clickhouse, io.env);
  try {
    return await fn({ ch, database: schemaConfigFromEnv(io.env).database });
  } finally {
    await ch.close();
  }
}

interface ScopeFlags {
  token?: string;
  tenant?: string;
  allTenants?: boolean;
}

/** Whose data this output may hold (platform/auth/read-scope.ts); a refusal is a one-line config error. */
function readScope(io: AlertsCliIo, flags: ScopeFlags): ReadScope {
  try {
    const scope = resolveReadScope(flags, io.env);
    if (scope.kind === 'all') io.err('tooltrail: every tenant (--all-tenants, operator mode)');
    return scope;
  } catch (err) {
    if (err instanceof ReadScopeError || err instanceof TokenConfigError) throw new AlertsConfigError(err.message);
    throw err;
  }
}

const scopeTenant = (scope: ReadScope) => (scope.kind === 'tenant' ? scope.tenant : '');

const sqlFile = sqlFiles(new URL('./sql/', import.meta.url));

async function tenantHasToolCalls(ch: ClickHouseClient, database: string, tenant: string): Promise<boolean> {
  const rs = await ch.query({
    query: sqlFile('tenantHasToolCalls'),
    query_params: { db: database, tenant },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<{ has_data: boolean | number }>();
  return Boolean(row?.has_data);
}

function config(io: AlertsCliIo, overrides: AlertsOverrides = {}) {
  return alertsConfigFromEnv(io.env, loadServicesConfig(io.env).alertmanager.url, overrides);
}

/** Who makes a change: --by, $TOOLTRAIL_USER or the OS user. Blank is refused here in one line, as the stores would. */
function who(io: AlertsCliIo, by?: string): string {
  const name = by ?? io.env.TOOLTRAIL_USER ?? userInfo().username;
  if (name.trim() === '') throw new AlertsConfigError('--by must not be empty (who makes the change)');
  return name;
}

function ownerName(owner: string): string {
  if (owner.trim() === '') throw new AlertsConfigError('--owner must not be empty');
  return owner;
}

function parseKind(kind: string): SubjectKind {
  if ((SUBJECT_KINDS as readonly string[]).includes(kind)) return kind as SubjectKind;
  throw new AlertsConfigError(`unknown owner subject kind "${kind}": use ${SUBJECT_KINDS.join(', ')}`);
}

/** The owner store's subject rules, checked first so that a mistake is one line, not the store's stack trace. */
function parseSubject(kind: string, subject: string, source: string): SubjectKind {
  const k = parseKind(kind);
  if (subject === '') throw new AlertsConfigError('an owner needs a subject (tool name, agent name or warning code)');
  if (k === 'warning' && source === '')
    throw new AlertsConfigError('a warning owner needs --source (the warning source)');
  if (k !== 'warning' && source !== '') throw new AlertsConfigError(`an owner of kind ${k} takes no --source`);
  return k;
}

/** Longest duration an option takes (100 years): longer ones make dates JavaScript and ClickHouse cannot hold. */
const MAX_DURATION_SECONDS = 100 * 365 * 86_400;

function duration(text: string): number {
  let seconds: number;
  try {
    seconds = parseDurationSeconds(text);
  } catch (err) {
    throw new AlertsConfigError((err as Error).message);
  }
  if (!(seconds <= MAX_DURATION_SECONDS)) throw new AlertsConfigError(`duration "${text}" is longer than 100 years`);
  return seconds;
}

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
    .action(
      async (opts: { once?: boolean; interval?: string; tenant?: string; pendingPeriod?: string; json?: boolean }) => {
        const c = config(io, {
          tenant: opts.tenant,
          intervalSeconds: opts.interval ? duration(opts.interval) : undefined,
          pendingSeconds: opts.pendingPeriod !== undefined ? duration(opts.pendingPeriod) : undefined,
        });
        const print = (r: EvaluationReport) =>
          io.out(
            opts.json
              ? JSON.stringify(r)
              : `${r.at} found ${r.found}, firing ${r.firing} (${r.opened} new), pending ${r.pending}, resolved ${r.resolved}, ` +
                  `${r.alertsSent} alert(s) sent${r.sendError ? ` (SEND FAILED: ${r.sendError})` : ''}, ` +
                  `${r.stateChanges} warning state change(s)`,
          );
        await withClickHouse(io, async ({ ch, database }) => {
          const evaluator = new Evaluator({
            ch,
            database,
            config: c,
            clock: io.clock,
            logger: {
              info: (m) => io.err(`tooltrail alerts: ${m}`),
              error: (m, e) => io.err(`tooltrail alerts: ${m}${e ? `: ${(e as Error).message}` : ''}`),
            },
          });
          if (opts.once) {
            const r = await evaluator.runOnce();
            print(r);
            if (r.sendError) process.exitCode = 1;
            return;
          }
          const schedule = evaluator.start(print);
          io.err(`tooltrail alerts: evaluating every ${c.intervalSeconds}s against ${c.alertmanagerUrl}`);
          await new Promise<void>((resolve) => {
            // The schedule's timers are unref'd: this holds the process open until a signal.
            const hold = setInterval(() => {}, 2 ** 30);
            const stop = () => {
              clearInterval(hold);
              process.off('SIGINT', stop);
              process.off('SIGTERM', stop);
              resolve();
            };
            process.on('SIGINT', stop);
            process.on('SIGTERM', stop);
          });
          await schedule.stop();
        });
      },
    );

  program
    .command('findings')
    .description('print what the detectors find now (read-only: nothing is paged or recorded)')
    .option('--since <duration>', 'judge mutations of this last period (default: alerts.findingActiveSeconds, 24h)')
    .option('--token <token>', "a read token (TOOLTRAIL_API_TOKEN): its tenant's findings only")
    .option('--tenant <tenant>', 'only this tenant')
    .option('--all-tenants', 'every tenant (operator)')
    .option('--json', 'print a JSON array (schema: alerts/findings/finding.schema.json)')
    .action(async (opts: ScopeFlags & { since?: string; json?: boolean }) => {
      const scope = readScope(io, opts);
      const c = config(io, { tenant: scopeTenant(scope) });
      const now = io.clock();
      const since = addSeconds(now, -(opts.since ? duration(opts.since) : c.findingActiveSeconds));
      const tenant = scopeTenant(scope);
      const { detected, hasData } = await withReadClickHouse(io, async ({ ch, database }) => ({
        detected: await detect({ ch, database, config: c, now, since }),
        hasData: tenant === '' || (await tenantHasToolCalls(ch, database, tenant)),
      }));
      if (!hasData) {
        io.err(
          `tooltrail: tenant ${tenant} has no tool calls stored at all (a collector without auth stores them under tenant "default")`,
        );
      }
      const findings = withinScope(scope, detected.findings);
      if (opts.json) {
        io.out(JSON.stringify(findings, null, 2));
        return;
      }
      if (findings.length === 0) {
        io.out('no findings');
        return;
      }
      for (const f of findings) {
        io.out(
          `${f.severity.padEnd(8)} ${f.kind}  ${f.fingerprint}  tenant=${f.tenant} owner=${f.owner ?? '(none: escalation)'}`,
        );
        io.out(`         ${f.summary}`);
        if (f.reconstruct) io.out(`         ${f.reconstruct.command}`);
      }
    });

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
    .action(
      async (
        kind: string,
        subject: string,
        o: { owner: string; team: string; source: string; tenant: string; by?: string; reason: string },
      ) => {
        const k = parseSubject(kind, subject, o.source);
        await withClickHouse(io, ({ ch, database }) =>
          setOwner(
            ch,
            database,
            { tenant: o.tenant, kind: k, subject, source: o.source },
            { owner: ownerName(o.owner), team: o.team },
            { by: who(io, o.by), reason: o.reason, at: io.clock() },
          ),
        );
        io.out(
          `${k} ${subject}${o.source ? ` (source ${o.source})` : ''}: owner ${o.owner}${o.team ? `, team ${o.team}` : ''}`,
        );
      },
    );
  owners
    .command('remove <kind> <subject>')
    .description('remove an owner (its alerts go to escalation again)')
    .option('--source <source>', 'warnings: the warning source', '')
    .option('--tenant <tenant>', 'the tenant the assignment was for (default: every tenant)', '')
    .option('--by <who>', 'who makes the change')
    .requiredOption('--reason <why>', 'why (kept in the change log)')
    .action(
      async (kind: string, subject: string, o: { source: string; tenant: string; by?: string; reason: string }) => {
        const k = parseSubject(kind, subject, o.source);
        await withClickHouse(io, ({ ch, database }) =>
          removeOwner(
            ch,
            database,
            { tenant: o.tenant, kind: k, subject, source: o.source },
            { by: who(io, o.by), reason: o.reason, at: io.clock() },
          ),
        );
        io.out(`${k} ${subject}: owner removed`);
      },
    );
  owners
    .command('list')
    .description('the current owners')
    .option('--tenant <tenant>', "this tenant's and the every-tenant assignments")
    .option('--json', 'print JSON')
    .action(async (o: { tenant?: string; json?: boolean }) => {
      const list = await withClickHouse(io, ({ ch, database }) => listOwners(ch, database, o.tenant ?? ''));
      if (o.json) {
        io.out(JSON.stringify(list, null, 2));
        return;
      }
      if (list.length === 0) io.out('no owners');
      for (const a of list) {
        const what = a.kind === 'warning' ? `warning ${a.subject} / ${a.source}` : `${a.kind} ${a.subject}`;
        io.out(
          `${what.padEnd(40)} ${a.owner}${a.team ? ` (team ${a.team})` : ''}  tenant=${a.tenant || '*'}  since ${a.assigned_at} by ${a.assigned_by}: ${a.reason}`,
        );
      }
    });

  const warnings = program
    .command('warnings')
    .description('warnings (code, source) with their lifecycle state, owner, days seen and next action')
    .option('--token <token>', "a read token (TOOLTRAIL_API_TOKEN): its tenant's warnings only")
    .option('--tenant <tenant>', 'only this tenant')
    .option('--all-tenants', 'every tenant (operator)')
    .option('--json', 'print JSON')
    .action(async (o: ScopeFlags & { json?: boolean }) => {
      const scope = readScope(io, o);
      const c = config(io, { tenant: scopeTenant(scope) });
      const now = io.clock();
      const reviews = await withReadClickHouse(io, ({ ch, database }) => reviewWarnings(ch, database, c, now));
      const rows = withinScope(scope, warningsCommandRows(reviews, c, now));
      if (o.json) {
        io.out(JSON.stringify(rows, null, 2));
        return;
      }
      if (rows.length === 0) io.out('no warnings seen');
      for (const r of rows) {
        io.out(
          `${r.state.padEnd(12)} ${r.code} / ${r.source}  tenant=${r.tenant} owner=${r.owner ?? '(none)'} ` +
            `seen ${r.days_seen}/${r.window_days} days, last ${r.last_seen} (${r.age_days}d ago) -> ${r.next_action}`,
        );
      }
    });
  // `warnings` has a --tenant of its own, and commander hands it the option wherever it is written: a subcommand's
  // --tenant arrives there.
  const parentTenant = () => (warnings.opts() as ScopeFlags).tenant;
  warnings
    .command('retire <code> <source>')
    .description('retire a warning (it stops being escalated or reminded; it comes back if seen again)')
    .option('--tenant <tenant>', 'the tenant (default: the only tenant where it was seen)')
    .option('--by <who>', 'who retires it')
    .requiredOption('--reason <why>', 'why (kept in the change log)')
    .action(async (code: string, source: string, o: { tenant?: string; by?: string; reason: string }) => {
      const c = config(io);
      const tenant = await withClickHouse(io, ({ ch, database }) =>
        retireWarning(
          ch,
          database,
          c,
          { code, source, tenant: o.tenant ?? parentTenant() },
          { by: who(io, o.by), reason: o.reason, at: io.clock() },
        ),
      );
      io.out(`${code} / ${source} (tenant ${tenant}): retired`);
    });
  warnings
    .command('ack <code> <source>')
    .description('acknowledge a warning: someone owns the fix, until a due date')
    .option('--tenant <tenant>', 'the tenant (default: the only tenant where it was seen)')
    .option('--due <duration>', 'when the fix is due, from now (default: alerts.warnings.remindAfterDays)')
    .option('--owner <owner>', 'also make this the owner of the (code, source) pair')
    .option('--team <team>', 'the team of --owner', '')
    .option('--by <who>', 'who acknowledges')
    .requiredOption('--reason <why>', 'why (kept in the change log)')
    .action(
      async (
        code: string,
        source: string,
        o: { tenant?: string; due?: string; owner?: string; team: string; by?: string; reason: string },
      ) => {
        const c = config(io);
        // --owner also assigns the (code, source) pair: the owner store's rules apply (both non-empty).
        if (o.owner !== undefined) parseSubject('warning', code, source);
        const now = io.clock();
        const due = addSeconds(now, o.due ? duration(o.due) : c.warnings.remindAfterDays * 86_400);
        const tenant = await withClickHouse(io, ({ ch, database }) =>
          acknowledgeWarning(
            ch,
            database,
            c,
            { code, source, tenant: o.tenant ?? parentTenant() },
            {
              by: who(io, o.by),
              reason: o.reason,
              at: now,
              due,
              owner: o.owner === undefined ? undefined : ownerName(o.owner),
              team: o.team,
            },
          ),
        );
        io.out(`${code} / ${source} (tenant ${tenant}): acknowledged until ${due.toISOString()}`);
      },
    );
  warnings
    .command('history [code] [source]')
    .description('the lifecycle change log (who, when, why)')
    .option('--token <token>', "a read token (TOOLTRAIL_API_TOKEN): its tenant's changes only")
    .option('--tenant <tenant>', 'the tenant of code/source')
    .option('--all-tenants', 'every tenant (operator)')
    .option('--json', 'print JSON')
    .action(async (code: string | undefined, source: string | undefined, own: ScopeFlags & { json?: boolean }) => {
      if ((code === undefined) !== (source === undefined))
        throw new AlertsConfigError('give both code and source, or neither');
      // `warnings` declares the same options, and commander gives them to it wherever they are written.
      const o = { ...(warnings.opts() as ScopeFlags & { json?: boolean }), ...own };
      const scope = readScope(io, o);
      // The change log is small (one row per human action): read it whole, keep the scope's and the pair's rows.
      const all = await withReadClickHouse(io, ({ ch, database }) => stateHistory(ch, database));
      const changes = withinScope(scope, all).filter(
        (x) => code === undefined || (x.code === code && x.source === source),
      );
      if (o.json) {
        io.out(JSON.stringify(changes, null, 2));
        return;
      }
      for (const ch of changes) {
        io.out(
          `${ch.changed_at} ${ch.code} / ${ch.source} tenant=${ch.tenant}: ${ch.from_state} -> ${ch.state} by ${ch.changed_by}: ${ch.reason}`,
        );
      }
    });
}
