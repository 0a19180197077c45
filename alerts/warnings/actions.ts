/** What people do to warnings (`tooltrail warnings retire | ack`) and what `tooltrail warnings` lists. */
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { DAY_MS } from '../clock.ts';
import { type AlertsConfig, AlertsConfigError } from '../config.ts';
import type { WarningReview } from '../findings/detect.ts';
import { reviewWarnings } from '../findings/detect.ts';
import { setOwner } from '../owners/store.ts';
import type { WarningState } from './lifecycle.ts';
import { currentState, recordStateChanges } from './store.ts';

export interface WarningRef {
  code: string;
  source: string;
  /** undefined: the only tenant where this warning was seen. */
  tenant?: string | undefined;
}

async function resolveTenant(
  ch: ClickHouseClient,
  database: string,
  c: AlertsConfig,
  ref: WarningRef,
  now: Date,
): Promise<string> {
  if (ref.tenant !== undefined) return ref.tenant;
  const tenants = (await reviewWarnings(ch, database, { ...c, tenant: '' }, now))
    .filter((r) => r.stats.code === ref.code && r.stats.source === ref.source)
    .map((r) => r.stats.tenant);
  if (tenants.length === 1) return tenants[0] as string;
  if (tenants.length === 0) {
    throw new AlertsConfigError(
      `warning ${ref.code} / ${ref.source} was not seen recently in any tenant: pass --tenant`,
    );
  }
  throw new AlertsConfigError(
    `warning ${ref.code} / ${ref.source} is seen in tenants ${tenants.join(', ')}: pass --tenant`,
  );
}

async function stateOf(ch: ClickHouseClient, database: string, key: Required<WarningRef>): Promise<WarningState> {
  return (await currentState(ch, database, key))?.state ?? 'active';
}

export async function retireWarning(
  ch: ClickHouseClient,
  database: string,
  c: AlertsConfig,
  ref: WarningRef,
  meta: { by: string; reason: string; at: Date },
): Promise<string> {
  const tenant = await resolveTenant(ch, database, c, ref, meta.at);
  const key = { code: ref.code, source: ref.source, tenant };
  const from = await stateOf(ch, database, key);
  await recordStateChanges(ch, database, [
    { ...key, from, to: 'retired', by: meta.by, at: meta.at, reason: meta.reason },
  ]);
  return tenant;
}

/** Acknowledging needs an owner: the one given (recorded as the pair's owner) or the one already resolved. */
export async function acknowledgeWarning(
  ch: ClickHouseClient,
  database: string,
  c: AlertsConfig,
  ref: WarningRef,
  meta: { by: string; reason: string; at: Date; due: Date; owner?: string | undefined; team?: string | undefined },
): Promise<string> {
  const tenant = await resolveTenant(ch, database, c, ref, meta.at);
  const key = { code: ref.code, source: ref.source, tenant };
  if (meta.owner) {
    await setOwner(
      ch,
      database,
      { tenant, kind: 'warning', subject: ref.code, source: ref.source },
      { owner: meta.owner, team: meta.team ?? '' },
      { by: meta.by, reason: `acknowledged: ${meta.reason}`, at: meta.at },
    );
  } else {
    const review = (await reviewWarnings(ch, database, { ...c, tenant }, meta.at)).find(
      (r) => r.stats.code === ref.code && r.stats.source === ref.source,
    );
    if (!review?.owner) {
      throw new AlertsConfigError(
        `warning ${ref.code} / ${ref.source} has no owner: pass --owner, or run tooltrail owners set warning ${ref.code} --source ${ref.source} --owner ...`,
      );
    }
  }
  const from = await stateOf(ch, database, key);
  await recordStateChanges(ch, database, [
    { ...key, from, to: 'acknowledged', due_at: meta.due, by: meta.by, at: meta.at, reason: meta.reason },
  ]);
  return tenant;
}

export interface WarningListRow {
  tenant: string;
  code: string;
  source: string;
  state: WarningState;
  owner: string | null;
  team: string | null;
  days_seen: number;
  window_days: number;
  occurrences: number;
  first_seen: string;
  last_seen: string;
  /** Whole days since it was last seen. */
  age_days: number;
  persistent: boolean;
  stale: boolean;
  /** What the evaluator does next: escalate | remind | propose_retirement | retire | none. */
  next_action: string;
  deadline: string | null;
  due_at: string | null;
  tools: string[];
}

export function warningsCommandRows(reviews: readonly WarningReview[], c: AlertsConfig, now: Date): WarningListRow[] {
  return reviews.map(({ stats: s, owner, decision: d }) => ({
    tenant: s.tenant,
    code: s.code,
    source: s.source,
    state: s.state,
    owner: owner?.owner ?? null,
    team: owner?.team ? owner.team : null,
    days_seen: s.days_seen,
    window_days: c.warnings.windowDays,
    occurrences: s.occurrences,
    first_seen: s.first_seen,
    last_seen: s.last_seen,
    age_days: Math.floor((now.getTime() - Date.parse(s.last_seen)) / DAY_MS),
    persistent: s.persistent,
    stale: s.stale,
    next_action: d.action,
    deadline: d.deadline,
    due_at: s.due_at,
    tools: s.tools,
  }));
}
