/**
 * What `tooltrail alerts | findings | owners | warnings` do (declared in command.ts, loaded when one runs): the
 * evaluator, the current findings, the owners and the warning lifecycle.
 */
import { userInfo } from 'node:os';
import { auditAlertsConfigFromEnv } from '../../../alerts/audit-log/config.ts';
import type { Clock } from '../../../alerts/clock.ts';
import { parseDurationSeconds } from '../../../alerts/duration.ts';
import { startSchedule } from '../../../alerts/evaluator/schedule.ts';
import {
  AlertsConfigError,
  type AlertsOverrides,
  acknowledgeWarning,
  addSeconds,
  alertmanagerClient,
  alertsConfigFromEnv,
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
  warningsCommandRows,
} from '../../../alerts/index.ts';
import { createReadClickHouse } from '../../../platform/auth/read-clickhouse.ts';
import { type ReadScope, ReadScopeError, resolveReadScope, withinScope } from '../../../platform/auth/read-scope.ts';
import { TokenConfigError } from '../../../platform/auth/tokens.ts';
import { type ClickHouseClient, clickHouseOf } from '../../../platform/clickhouse.ts';
import { sqlFiles } from '../../../platform/sql-files.ts';
import { schemaConfigFromEnv } from '../../../schema/config.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { auditWatch } from './audit-watch.ts';

export interface AlertsCliIo {
  /** One line of standard output (no trailing newline). */
  out(line: string): void;
  /** One line of diagnostics. */
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  clock: Clock;
}

export interface ScopeFlags {
  token?: string;
  tenant?: string;
  allTenants?: boolean;
}

interface Context {
  ch: ClickHouseClient;
  database: string;
}

async function withClickHouse<T>(io: AlertsCliIo, fn: (ctx: Context) => Promise<T>): Promise<T> {
  const svc = loadServicesConfig(io.env);
  const schema = schemaConfigFromEnv(io.env);
  const ch = clickHouseOf(svc.clickhouse);
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
    query: sqlFile('tenant_has_tool_calls'),
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

export interface EvaluateFlags {
  once?: boolean;
  interval?: string;
  tenant?: string;
  pendingPeriod?: string;
  json?: boolean;
}

/** `tooltrail alerts`. */
export async function evaluate(io: AlertsCliIo, opts: EvaluateFlags): Promise<void> {
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
    const audit = auditAlertsConfigFromEnv(io.env);
    const watchAudit = audit.enabled
      ? auditWatch({
          ch,
          database,
          tenant: c.tenant,
          sink: alertmanagerClient(c.alertmanagerUrl, c.alertmanagerTimeoutMs),
          alertTtlSeconds: c.alertTtlSeconds,
          config: audit,
          env: io.env,
          clock: io.clock,
          warn: io.err,
        })
      : undefined;
    const auditRun = async () => {
      const sent = await watchAudit?.();
      if (sent?.length) io.err(`tooltrail alerts: ${sent.length} audit log alert(s) sent`);
    };
    if (opts.once) {
      const r = await evaluator.runOnce();
      print(r);
      try {
        await auditRun();
      } catch (err) {
        io.err(`tooltrail alerts: the audit log watch failed: ${(err as Error).message}`);
        process.exitCode = 1;
      }
      if (r.sendError) process.exitCode = 1;
      return;
    }
    const auditSchedule = startSchedule(auditRun, {
      intervalMs: c.intervalSeconds * 1000,
      onError: (err) => io.err(`tooltrail alerts: the audit log watch failed: ${(err as Error).message}`),
    });
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
    await Promise.all([schedule.stop(), auditSchedule.stop()]);
  });
}

/** `tooltrail findings`. */
export async function findings(io: AlertsCliIo, opts: ScopeFlags & { since?: string; json?: boolean }): Promise<void> {
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
  const found = withinScope(scope, detected.findings);
  if (opts.json) {
    io.out(JSON.stringify(found, null, 2));
    return;
  }
  if (found.length === 0) {
    io.out('no findings');
    return;
  }
  for (const f of found) {
    io.out(
      `${f.severity.padEnd(8)} ${f.kind}  ${f.fingerprint}  tenant=${f.tenant} owner=${f.owner ?? '(none: escalation)'}`,
    );
    io.out(`         ${f.summary}`);
    if (f.reconstruct) io.out(`         ${f.reconstruct.command}`);
  }
}

export interface OwnerSetFlags {
  owner: string;
  team: string;
  source: string;
  tenant: string;
  by?: string;
  reason: string;
}

/** `tooltrail owners set`. */
export async function ownersSet(io: AlertsCliIo, kind: string, subject: string, o: OwnerSetFlags): Promise<void> {
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
}

export interface RemoveFlags {
  source: string;
  tenant: string;
  by?: string;
  reason: string;
}

/** `tooltrail owners remove`. */
export async function ownersRemove(io: AlertsCliIo, kind: string, subject: string, o: RemoveFlags): Promise<void> {
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
}

/** `tooltrail owners list`. */
export async function ownersList(io: AlertsCliIo, o: { tenant?: string; json?: boolean }): Promise<void> {
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
}

/** `tooltrail warnings`. */
export async function warningsList(io: AlertsCliIo, o: ScopeFlags & { json?: boolean }): Promise<void> {
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
}

/** `tooltrail warnings retire`; `tenant` is this command's --tenant or the parent's. */
export async function warningsRetire(
  io: AlertsCliIo,
  code: string,
  source: string,
  o: { tenant?: string; by?: string; reason: string },
): Promise<void> {
  const c = config(io);
  const tenant = await withClickHouse(io, ({ ch, database }) =>
    retireWarning(
      ch,
      database,
      c,
      { code, source, tenant: o.tenant },
      { by: who(io, o.by), reason: o.reason, at: io.clock() },
    ),
  );
  io.out(`${code} / ${source} (tenant ${tenant}): retired`);
}

export interface AckFlags {
  tenant?: string;
  due?: string;
  owner?: string;
  team: string;
  by?: string;
  reason: string;
}

/** `tooltrail warnings ack`; `tenant` is this command's --tenant or the parent's. */
export async function warningsAck(io: AlertsCliIo, code: string, source: string, o: AckFlags): Promise<void> {
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
      { code, source, tenant: o.tenant },
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
}

/** `tooltrail warnings history`; `o` holds the parent's options under this command's own. */
export async function warningsHistory(
  io: AlertsCliIo,
  code: string | undefined,
  source: string | undefined,
  o: ScopeFlags & { json?: boolean },
): Promise<void> {
  if ((code === undefined) !== (source === undefined))
    throw new AlertsConfigError('give both code and source, or neither');
  const scope = readScope(io, o);
  // The change log is small (one row per human action): read it whole, keep the scope's and the pair's rows.
  const all = await withReadClickHouse(io, ({ ch, database }) => stateHistory(ch, database));
  const changes = withinScope(scope, all).filter((x) => code === undefined || (x.code === code && x.source === source));
  if (o.json) {
    io.out(JSON.stringify(changes, null, 2));
    return;
  }
  for (const ch of changes) {
    io.out(
      `${ch.changed_at} ${ch.code} / ${ch.source} tenant=${ch.tenant}: ${ch.from_state} -> ${ch.state} by ${ch.changed_by}: ${ch.reason}`,
    );
  }
}
