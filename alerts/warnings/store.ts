/**
 * Warning states: an append-only change log (warning_state_changes) with who, when and why; the
 * `warning_states` view holds the current state. A warning with no change is `active`.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { sqlFiles } from '../../platform/sql-files.ts';
import { chTimeToIso } from '../detectors/rows.ts';
import { chTime, table } from '../identifiers.ts';
import { WARNING_STATES, type WarningState } from './lifecycle.ts';

const sql = sqlFiles(new URL('./sql/', import.meta.url));

export interface WarningKey {
  tenant: string;
  code: string;
  source: string;
}

export interface StateChange extends WarningKey {
  from: WarningState;
  to: WarningState;
  /** Acknowledgements: when the owner means to have fixed it. */
  due_at?: Date | null;
  by: string;
  at: Date;
  reason: string;
}

export async function recordStateChanges(
  ch: ClickHouseClient,
  database: string,
  changes: readonly StateChange[],
): Promise<void> {
  if (changes.length === 0) return;
  for (const c of changes) {
    if (c.by.trim() === '') throw new Error('who made the change (--by) must not be empty');
  }
  await ch.insert({
    table: table(database, 'warning_state_changes'),
    format: 'JSONEachRow',
    // change_seq keeps the order of changes recorded together (migration 0015): changed_at may be equal.
    values: changes.map((c, i) => ({
      tenant: c.tenant,
      code: c.code,
      source: c.source,
      from_state: c.from,
      state: c.to,
      due_at: c.due_at ? chTime(c.due_at) : null,
      changed_by: c.by,
      changed_at: chTime(c.at),
      change_seq: i,
      reason: c.reason,
    })),
  });
}

const StateRow = z.object({
  tenant: z.string(),
  code: z.string(),
  source: z.string(),
  state: z.enum(WARNING_STATES),
  due_at: z.string().transform(chTimeToIso).nullable(),
  state_changed_at: z.string().transform(chTimeToIso),
  changed_by: z.string(),
  reason: z.string(),
});
export type CurrentState = z.infer<typeof StateRow>;

export async function currentState(
  ch: ClickHouseClient,
  database: string,
  key: WarningKey,
): Promise<CurrentState | null> {
  const rs = await ch.query({
    query: sql('warning_state'),
    query_params: { db: database, ...key },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<unknown>();
  return rows[0] === undefined ? null : StateRow.parse(rows[0]);
}

const ChangeRow = z.object({
  tenant: z.string(),
  code: z.string(),
  source: z.string(),
  from_state: z.string(),
  state: z.enum(WARNING_STATES),
  due_at: z.string().transform(chTimeToIso).nullable(),
  changed_by: z.string(),
  changed_at: z.string().transform(chTimeToIso),
  reason: z.string(),
});
export type RecordedChange = z.infer<typeof ChangeRow>;

/** The change log, oldest first; with a key, only that warning's. */
export async function stateHistory(
  ch: ClickHouseClient,
  database: string,
  key?: WarningKey,
): Promise<RecordedChange[]> {
  const rs = await ch.query({
    query: sql('warning_state_change_log'),
    query_params: {
      db: database,
      any: key === undefined,
      tenant: key?.tenant ?? '',
      code: key?.code ?? '',
      source: key?.source ?? '',
    },
    format: 'JSONEachRow',
  });
  return (await rs.json<unknown>()).map((r) => ChangeRow.parse(r));
}
