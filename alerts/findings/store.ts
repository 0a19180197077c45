/**
 * The `findings` table: one row per fingerprint (ReplacingMergeTree(version), read with FINAL), holding the
 * finding itself (flat columns for dashboards, and its JSON) and its lifecycle: first/last seen, resolution and
 * what Alertmanager was last told.
 */
import { z } from 'zod';
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { sqlFiles } from '../../platform/sql-files.ts';
import { chTimeToIso } from '../detectors/rows.ts';
import { chTime, nextVersion, table } from '../identifiers.ts';
import { type Finding, FindingSchema } from './finding.ts';

/** pending: never sent; firing: Alertmanager has it firing; resolved: it was told it ended; not_sent: never paged. */
export const ALERT_STATUSES = ['pending', 'firing', 'resolved', 'not_sent'] as const;
export type AlertStatus = (typeof ALERT_STATUSES)[number];

export type Resolution = '' | 'no_longer_matches' | 'expired';

export interface FindingRecord {
  finding: Finding;
  first_seen: Date;
  last_seen: Date;
  resolved_at: Date | null;
  resolution: Resolution;
  alert_status: AlertStatus;
  last_sent_at: Date | null;
}

const time = z.string().transform((s) => new Date(chTimeToIso(s)));
const StoredRow = z.object({
  finding_json: z.string(),
  first_seen: time,
  last_seen: time,
  resolved_at: time.nullable(),
  resolution: z.enum(['', 'no_longer_matches', 'expired']),
  alert_status: z.enum(ALERT_STATUSES),
  last_sent_at: time.nullable(),
});

function fromRow(raw: unknown): FindingRecord {
  const r = StoredRow.parse(raw);
  return {
    finding: FindingSchema.parse(JSON.parse(r.finding_json)),
    first_seen: r.first_seen,
    last_seen: r.last_seen,
    resolved_at: r.resolved_at,
    resolution: r.resolution,
    alert_status: r.alert_status,
    last_sent_at: r.last_sent_at,
  };
}

const sql = sqlFiles(new URL('./sql/', import.meta.url));

/**
 * What the evaluator must reconcile: findings still open (active, or resolved but Alertmanager not yet told),
 * plus every record of a thing that happened in the range being judged (event_time >= since), so a finding
 * found again keeps its history. Bounded by time, not by a list of fingerprints (which could outgrow a URL).
 */
export async function loadOpenAndRecent(
  ch: ClickHouseClient,
  database: string,
  tenant: string,
  since: Date,
): Promise<Map<string, FindingRecord>> {
  const rs = await ch.query({
    query: sql('open_and_recent_findings'),
    query_params: { db: database, tenant, since },
    format: 'JSONEachRow',
  });
  const out = new Map<string, FindingRecord>();
  for (const raw of await rs.json<unknown>()) {
    const rec = fromRow(raw);
    out.set(rec.finding.fingerprint, rec);
  }
  return out;
}

export interface ListOptions {
  tenant?: string;
  /** Only findings seen at or after this time. */
  since?: Date;
  activeOnly?: boolean;
}

export async function listRecords(
  ch: ClickHouseClient,
  database: string,
  o: ListOptions = {},
): Promise<FindingRecord[]> {
  const rs = await ch.query({
    query: sql('listed_findings'),
    query_params: {
      db: database,
      tenant: o.tenant ?? '',
      since: o.since ?? new Date(0),
      active_only: o.activeOnly ?? false,
    },
    format: 'JSONEachRow',
  });
  return (await rs.json<unknown>()).map(fromRow);
}

export async function writeRecords(
  ch: ClickHouseClient,
  database: string,
  records: readonly FindingRecord[],
): Promise<void> {
  if (records.length === 0) return;
  await ch.insert({
    table: table(database, 'findings'),
    format: 'JSONEachRow',
    values: records.map(toRow),
  });
}

function toRow(rec: FindingRecord): Record<string, unknown> {
  const f = rec.finding;
  return {
    fingerprint: f.fingerprint,
    kind: f.kind,
    severity: f.severity,
    score: f.score,
    tenant: f.tenant,
    session_id: f.session ?? '',
    trace_id: f.trace_id ?? '',
    mutation_span_id: f.mutation_span_id ?? '',
    event_time: chTime(new Date(f.event_time)),
    tool_name: f.tool ?? '',
    agent_name: f.agent ?? '',
    scope_resource: f.scope_resource ?? '',
    mutation_basis: f.mutation_basis ?? '',
    target_count: f.target_count,
    guard_decision: f.guard_decision ?? '',
    read_span_ids: f.read_span_ids,
    read_trace_ids: f.read_trace_ids,
    read_tool_names: f.read_tools,
    reasons: f.reasons,
    incomplete_empty: f.incomplete_empty,
    missing_evidence: f.missing_evidence,
    warning_code: f.warning?.code ?? '',
    warning_source: f.warning?.source ?? '',
    days_seen: f.warning?.days_seen ?? 0,
    occurrences: f.warning?.occurrences ?? f.rate?.incomplete_empty_reads ?? 0,
    total: f.rate?.total_reads ?? 0,
    rate: f.rate?.rate ?? 0,
    owner: f.owner ?? '',
    team: f.team ?? '',
    summary: f.summary,
    finding_json: JSON.stringify(f),
    first_seen: chTime(rec.first_seen),
    last_seen: chTime(rec.last_seen),
    resolved_at: rec.resolved_at ? chTime(rec.resolved_at) : null,
    resolution: rec.resolution,
    alert_status: rec.alert_status,
    last_sent_at: rec.last_sent_at ? chTime(rec.last_sent_at) : null,
    version: nextVersion(),
  };
}
