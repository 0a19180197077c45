/**
 * The audit log's alerts: a checkpoint that stops advancing while rows arrive, a gap in leaf indices (both SQL
 * rules over the log's tables, ./sql/), and a consistency failure (found by the audit stage, whose problems the
 * assembly hands in: alerts never imports audit). Each pages the log's audit owner (owners kind `audit`) through
 * Alertmanager. Stateless: every run posts what holds now with endsAt = now + TTL, so an alert that stops holding
 * ends by itself; labels depend only on what it is, so re-posting updates one alert instead of paging again.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { sqlFiles } from '../../platform/sql-files.ts';
import type { AlertSink } from '../alertmanager/client.ts';
import type { PostableAlert } from '../alertmanager/payload.ts';
import { formatDuration } from '../duration.ts';
import { OwnerDirectory, type ResolvedOwner } from '../owners/resolve.ts';
import { listOwners } from '../owners/store.ts';

const sql = sqlFiles(new URL('./sql/', import.meta.url));

export const AUDIT_ALERT_NAMES = {
  stalled: 'AuditCheckpointStalled',
  gap: 'AuditLeafGap',
  inconsistent: 'AuditLogInconsistent',
} as const;

/** A log the audit stage found inconsistent (a checkpoint no longer in the tree, or not extended by the next). */
export interface LogConsistencyProblem {
  tenant: string;
  log: string;
  /** The tree size of the checkpoint concerned, when there is one. */
  size: number | null;
  /** The audit stage's reason code (e.g. checkpoint_inconsistent, checkpoint_root_mismatch). */
  kind: string;
  statement: string;
}

export interface AuditAlertsOptions {
  ch: ClickHouseClient;
  database: string;
  /** '' = every tenant. */
  tenant: string;
  now: Date;
  /** A checkpoint older than this while rows arrived within it is stalled; must exceed the checkpoint interval. */
  stallSeconds: number;
  alertTtlSeconds: number;
  problems: readonly LogConsistencyProblem[];
}

const decimal = z.string().regex(/^\d+$/);
const StalledRow = z.object({
  tenant: z.string(),
  log: z.string(),
  checkpoint_size: decimal,
  published_ms: decimal,
  last_arrival_ms: decimal,
  rows_arrived: z.coerce.number(),
});
const GapRow = z.object({ tenant: z.string(), log: z.string(), size: decimal, leaves: decimal });

async function select<T>(ch: ClickHouseClient, name: string, params: Record<string, unknown>, schema: z.ZodType<T>) {
  const rs = await ch.query({ query: sql(name), query_params: params, format: 'JSONEachRow' });
  return (await rs.json<unknown>()).map((r) => schema.parse(r));
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

function alert(
  name: string,
  where: { tenant: string; log: string },
  owner: ResolvedOwner | null,
  annotations: Record<string, string>,
  startsAt: Date,
  endsAt: Date,
  extra: Record<string, string> = {},
): PostableAlert {
  const labels: Record<string, string> = {
    alertname: name,
    severity: 'critical',
    tenant: where.tenant,
    log: where.log,
    ...extra,
  };
  if (owner?.owner) labels.owner = owner.owner;
  if (owner?.team) labels.team = owner.team;
  return {
    labels,
    annotations: {
      ...annotations,
      verify_command: `tooltrail verify --tenant ${where.tenant} --no-rows --key <verifier>`,
    },
    startsAt: startsAt.toISOString(),
    endsAt: endsAt.toISOString(),
  };
}

/** The alerts that hold now. */
export async function auditLogAlerts(o: AuditAlertsOptions): Promise<PostableAlert[]> {
  const params = { database: o.database, tenant: o.tenant };
  const [stalled, gaps, assignments] = await Promise.all([
    select(
      o.ch,
      'audit_checkpoint_stalled',
      { ...params, now: o.now.getTime() / 1000, stall_seconds: o.stallSeconds },
      StalledRow,
    ),
    select(o.ch, 'audit_leaf_gap', params, GapRow),
    listOwners(o.ch, o.database, o.tenant),
  ]);
  const owners = new OwnerDirectory(assignments);
  const endsAt = new Date(o.now.getTime() + o.alertTtlSeconds * 1000);
  const out: PostableAlert[] = [];
  for (const s of stalled)
    out.push(
      alert(
        AUDIT_ALERT_NAMES.stalled,
        s,
        owners.forAuditLog(s.tenant, s.log),
        {
          summary: `the audit log of ${s.tenant} signed no checkpoint since ${iso(s.published_ms)} while ${s.rows_arrived} row(s) arrived in the last ${formatDuration(o.stallSeconds)}`,
          checkpoint_size: s.checkpoint_size,
          checkpoint_published_at: iso(s.published_ms),
          last_arrival: iso(s.last_arrival_ms),
        },
        new Date(Number(s.published_ms) + o.stallSeconds * 1000),
        endsAt,
      ),
    );
  for (const g of gaps)
    out.push(
      alert(
        AUDIT_ALERT_NAMES.gap,
        g,
        owners.forAuditLog(g.tenant, g.log),
        {
          summary: `the audit log ${g.tenant}/${g.log} holds ${g.leaves} of its ${g.size} leaves: ${Number(g.size) - Number(g.leaves)} were deleted`,
          tree_size: g.size,
          leaves: g.leaves,
        },
        o.now,
        endsAt,
      ),
    );
  for (const p of o.problems)
    out.push(
      alert(
        AUDIT_ALERT_NAMES.inconsistent,
        p,
        owners.forAuditLog(p.tenant, p.log),
        { summary: p.statement, ...(p.size !== null ? { tree_size: String(p.size) } : {}) },
        o.now,
        endsAt,
        { reason: p.kind },
      ),
    );
  return out;
}

/** One watch run: find what holds and post it; returns the alerts posted. */
export async function watchAuditLog(
  o: Omit<AuditAlertsOptions, 'problems'> & {
    sink: AlertSink;
    /** The audit stage's consistency check, wired by the assembly. */
    consistency: () => Promise<readonly LogConsistencyProblem[]>;
  },
): Promise<PostableAlert[]> {
  const alerts = await auditLogAlerts({ ...o, problems: await o.consistency() });
  await o.sink.post(alerts);
  return alerts;
}
