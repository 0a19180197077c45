/**
 * What `tooltrail status` does (declared in command.ts, loaded when it runs).
 */
import { parseDurationSeconds } from '../../../alerts/duration.ts';
import { DEFAULT_PORT, METRICS_TOKEN_ENV } from '../../../collector/endpoint.ts';
import type { RejectionReport } from '../../../collector/rejection-window.ts';
import { PIPELINE_WARNING_CODES } from '../../../contract/index.ts';
import { createReadClickHouse } from '../../../platform/auth/read-clickhouse.ts';
import { type ReadScope, ReadScopeError, resolveReadScope, withinScope } from '../../../platform/auth/read-scope.ts';
import { TokenConfigError } from '../../../platform/auth/tokens.ts';
import { sqlFiles } from '../../../platform/sql-files.ts';
import { schemaConfigFromEnv } from '../../../schema/config.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { COLLECTOR_TOKEN_ENV, COLLECTOR_URL_ENV } from './env.ts';

export interface StatusIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  now(): Date;
}

export interface StatusFlags {
  since?: string;
  json?: boolean;
  token?: string;
  tenant?: string;
  allTenants?: boolean;
  collector?: string;
}

export interface FlaggedRow {
  tenant: string;
  reason: string;
  attribute: string;
  spans: number;
  example_span_id: string;
  message: string;
  last_seen: string;
}

/** A tool of another emitter that no tool policy gives an effect: its mutations are never judged. */
export interface UnknownEffectRow {
  tenant: string;
  tool: string;
  emitter: string;
  spans: number;
  example_span_id: string;
  last_seen: string;
}

/** What the collector's /v1/rejections answers: its own report type (collector/rejection-window.ts). */
export type RejectedRow = RejectionReport;

export interface StatusReport {
  since: string;
  until: string;
  scope: { tenant: string } | { tenants: 'all' };
  flagged: FlaggedRow[];
  /** Tools of other emitters (ingest/emitters/) of unknown effect: add them to the tool policy file. */
  unknownEffect: UnknownEffectRow[];
  /** null when the collector could not be asked (`collector.error` says why). */
  rejected: RejectedRow[] | null;
  collector: { url: string; error?: string };
}

/** The collector keeps one hour of rejections. */
const MAX_SINCE_SECONDS = 3_600;

class StatusUsageError extends Error {}

const sqlFile = sqlFiles(new URL('./sql/', import.meta.url));

/** `tooltrail status`: a usage error is one line and exit code 1. */
export async function statusAction(flags: StatusFlags, io: StatusIo): Promise<void> {
  try {
    process.exitCode = await runStatus(flags, io);
  } catch (err) {
    if (err instanceof StatusUsageError || err instanceof ReadScopeError || err instanceof TokenConfigError) {
      io.err(`tooltrail: ${err.message}`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
}

/** Exit code 0 with the report; 1 for a usage error; 3 when the collector could not be asked (the rest printed). */
export async function runStatus(flags: StatusFlags, io: StatusIo): Promise<number> {
  let seconds: number;
  try {
    seconds = parseDurationSeconds(flags.since ?? '1h');
  } catch (err) {
    throw new StatusUsageError(`--since: ${(err as Error).message}`);
  }
  if (!(seconds > 0 && seconds <= MAX_SINCE_SECONDS))
    throw new StatusUsageError('--since must be from 1s to 1h: the collector keeps one hour of rejections');
  const scope = resolveReadScope(flags, io.env);
  if (scope.kind === 'all') io.err('tooltrail: every tenant (--all-tenants, operator mode)');
  const until = io.now();
  const since = new Date(until.getTime() - seconds * 1_000);
  const url = (flags.collector ?? io.env[COLLECTOR_URL_ENV] ?? `http://127.0.0.1:${DEFAULT_PORT}`).replace(/\/+$/, '');
  const [[flagged, unknownEffect], rejected] = await Promise.all([
    readStored(io.env, scope, since),
    askCollector(url, io.env, seconds),
  ]);
  const report: StatusReport = {
    since: since.toISOString(),
    until: until.toISOString(),
    scope: scope.kind === 'tenant' ? { tenant: scope.tenant } : { tenants: 'all' },
    flagged,
    unknownEffect,
    rejected: 'error' in rejected ? null : withinScope(scope, rejected.rows),
    collector: { url, ...('error' in rejected ? { error: rejected.error } : {}) },
  };
  if (flags.json) io.out(JSON.stringify(report, null, 2));
  else for (const line of renderStatus(report)) io.out(line);
  if (report.collector.error) io.err(`tooltrail: rejections unknown: ${report.collector.error}`);
  return report.collector.error ? 3 : 0;
}

/** What ClickHouse holds of the window: the flagged tool calls, and the tools of unknown effect. */
async function readStored(
  env: NodeJS.ProcessEnv,
  scope: ReadScope,
  since: Date,
): Promise<[FlaggedRow[], UnknownEffectRow[]]> {
  const ch = createReadClickHouse(loadServicesConfig(env).clickhouse, env);
  const params = {
    db: schemaConfigFromEnv(env).database,
    since: since.getTime() / 1_000,
    tenant: scope.kind === 'tenant' ? scope.tenant : '',
  };
  try {
    const flagged = await ch.query({
      query: sqlFile('pipeline_flags'),
      query_params: { ...params, codes: [...PIPELINE_WARNING_CODES] },
      format: 'JSONEachRow',
    });
    const unknown = await ch.query({
      query: sqlFile('unknown_effect_tools'),
      query_params: params,
      format: 'JSONEachRow',
    });
    // ClickHouse answers a UInt64 count as a string.
    const counted = <T extends { tenant: string; spans: number }>(
      rows: (Omit<T, 'spans'> & { spans: number | string })[],
    ) =>
      withinScope(
        scope,
        rows.map((r) => ({ ...r, spans: Number(r.spans) }) as T),
      );
    return [counted<FlaggedRow>(await flagged.json()), counted<UnknownEffectRow>(await unknown.json())];
  } finally {
    await ch.close();
  }
}

/** The collector's last hour of rejections; the operator's metrics token reads every tenant, a sender's its own. */
async function askCollector(
  url: string,
  env: NodeJS.ProcessEnv,
  seconds: number,
): Promise<{ rows: RejectedRow[] } | { error: string }> {
  const token = env[METRICS_TOKEN_ENV] || env[COLLECTOR_TOKEN_ENV];
  try {
    const res = await fetch(`${url}/v1/rejections?since=${seconds}`, {
      headers: token ? { authorization: `Bearer ${token}` } : {},
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await res.json().catch(() => ({}))) as { rejections?: RejectedRow[]; error?: string };
    if (!res.ok || !Array.isArray(body.rejections)) {
      const hint =
        res.status === 401 ? ` (set ${METRICS_TOKEN_ENV}, the operator's, or ${COLLECTOR_TOKEN_ENV}, a sender's)` : '';
      return { error: `${url} answered ${res.status}${body.error ? `: ${body.error}` : ''}${hint}` };
    }
    return { rows: body.rejections };
  } catch (err) {
    const cause = (err as { cause?: { code?: string } }).cause?.code ?? (err as Error).message;
    return {
      error: `the collector at ${url} could not be asked (${cause}); is it running? (--collector or ${COLLECTOR_URL_ENV})`,
    };
  }
}

export function renderStatus(r: StatusReport): string[] {
  const who = 'tenant' in r.scope ? `tenant ${r.scope.tenant}` : 'every tenant';
  const lines = [`tooltrail status: ${who}, ${r.since} -> ${r.until}`];
  const rows = [
    ...r.flagged.map((f) => ({ ...f, outcome: 'FLAGGED', what: `${f.reason} ${f.attribute}`.trim() })),
    ...(r.rejected ?? []).map((x) => ({ ...x, outcome: 'REJECTED', what: x.reason })),
    ...r.unknownEffect.map((u) => ({
      ...u,
      outcome: 'UNKNOWN',
      what: `effect of ${u.tool || '(unnamed tool)'} (${u.emitter})`,
      message: 'no tool policy names it: its mutations are not judged (add it to the --policy file)',
    })),
  ].sort((a, b) => a.tenant.localeCompare(b.tenant) || a.outcome.localeCompare(b.outcome) || b.spans - a.spans);
  if (rows.length === 0)
    lines.push(r.rejected === null ? 'nothing flagged (rejections unknown)' : 'nothing flagged, rejected or unknown');
  for (const x of rows) {
    lines.push(
      `${x.tenant.padEnd(12)} ${x.outcome.padEnd(8)} ${x.what.padEnd(52)} ${String(x.spans).padStart(6)} span(s)  e.g. span ${x.example_span_id || '(none)'}: ${x.message}`,
    );
  }
  if (r.rejected === null) lines.push(`rejections unknown: ${r.collector.error ?? ''}`);
  return lines;
}
