/**
 * One detection pass: every detector over its range, owners resolved, warnings judged. Looks only: it writes
 * nothing (the evaluator persists, pages and applies the lifecycle transitions; `tooltrail findings` prints).
 */
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { addSeconds } from '../clock.ts';
import type { AlertsConfig } from '../config.ts';
import { runDetector } from '../detectors/load.ts';
import {
  AbsenceMutationRow,
  DangerousEmptyReadsRow,
  MutationAfterIncompleteReadRow,
  WarningStatsRow,
} from '../detectors/rows.ts';
import { OwnerDirectory, type ResolvedOwner } from '../owners/resolve.ts';
import { listOwners } from '../owners/store.ts';
import { decideWarning, type WarningDecision } from '../warnings/lifecycle.ts';
import {
  absenceMutationWithoutCompleteEvidence,
  dangerousEmptyReads,
  mutationAfterIncompleteRead,
  warningFinding,
} from './build.ts';
import type { Finding } from './finding.ts';
import { type JudgedSessions, judgedSessions } from './judged.ts';

export interface DetectOptions {
  ch: ClickHouseClient;
  database: string;
  config: AlertsConfig;
  now: Date;
  /** Range mode: mutations that started in [since, now) are judged. */
  since: Date;
  /**
   * Incremental mode (the evaluator's runs after its first): only the mutations of the sessions that received a
   * read or a mutation stored in [since, until) (arrival time) are judged; `since` above is then unused by them.
   */
  arrivals?: { since: Date; until: Date } | undefined;
}

export interface WarningReview {
  stats: WarningStatsRow;
  owner: ResolvedOwner | null;
  decision: WarningDecision;
}

export interface Detection {
  findings: Finding[];
  warnings: WarningReview[];
  /** Incremental mode: which mutations were judged (the others keep their stored verdict). */
  judged: JudgedSessions | null;
  owners: OwnerDirectory;
}

export async function detect(o: DetectOptions): Promise<Detection> {
  const { ch, database, config: c, now } = o;
  const rangeParams = {
    database,
    tenant: c.tenant,
    since: o.since,
    until: now,
    window_seconds: c.mutationWindowSeconds,
  };
  const arrivalParams = o.arrivals && {
    database,
    tenant: c.tenant,
    arrived_since: o.arrivals.since,
    arrived_until: o.arrivals.until,
  };
  // Owners are only needed to build the rows: read with the detectors, not before them (one round trip less).
  const [owners, mair, amwce, arrived, empties, warningRows] = await Promise.all([
    listOwners(ch, database, c.tenant).then((rows) => new OwnerDirectory(rows)),
    arrivalParams
      ? runDetector(ch, 'incremental_mutation_after_incomplete_read', {
          ...arrivalParams,
          window_seconds: c.mutationWindowSeconds,
        })
      : runDetector(ch, 'mutation_after_incomplete_read', rangeParams),
    arrivalParams
      ? runDetector(ch, 'incremental_absence_mutation_without_complete_evidence', {
          ...arrivalParams,
          window_seconds: c.mutationWindowSeconds,
        })
      : runDetector(ch, 'absence_mutation_without_complete_evidence', rangeParams),
    arrivalParams ? runDetector(ch, 'arrived_sessions', arrivalParams) : Promise.resolve(null),
    c.dangerousEmptyReads.enabled
      ? runDetector(ch, 'dangerous_empty_reads', {
          database,
          tenant: c.tenant,
          since: addSeconds(now, -c.dangerousEmptyReads.windowSeconds),
          until: now,
          min_count: c.dangerousEmptyReads.minCount,
          min_rate: c.dangerousEmptyReads.minRate,
        })
      : Promise.resolve([]),
    warningStats(ch, database, c, now),
  ]);
  const warnings = judgeWarnings(warningRows, owners, c, now);

  const findings: Finding[] = [];
  for (const raw of mair) {
    const r = MutationAfterIncompleteReadRow.parse(raw);
    findings.push(
      mutationAfterIncompleteRead(r, owners.forMutation(r.tenant, r.tool_name, r.agent_name), c.reconstructUrl),
    );
  }
  for (const raw of amwce) {
    const r = AbsenceMutationRow.parse(raw);
    findings.push(
      absenceMutationWithoutCompleteEvidence(
        r,
        owners.forMutation(r.tenant, r.tool_name, r.agent_name),
        c.reconstructUrl,
      ),
    );
  }
  for (const raw of empties) {
    const r = DangerousEmptyReadsRow.parse(raw);
    findings.push(
      dangerousEmptyReads(
        r,
        owners.forTool(r.tenant, r.tool_name),
        c.dangerousEmptyReads.minRate,
        c.dangerousEmptyReads.windowSeconds,
        now,
      ),
    );
  }
  for (const w of warnings) {
    const { action } = w.decision;
    if (action === 'escalate' || action === 'remind' || action === 'propose_retirement') {
      findings.push(warningFinding(w.stats, { ...w.decision, action }, w.owner, c.warnings.windowDays));
    }
  }
  return { findings, warnings, judged: arrived && judgedSessions(arrived), owners };
}

/** Every warning seen in the lifecycle lookback, with its owner and what the lifecycle rules decide for it. */
export async function reviewWarnings(
  ch: ClickHouseClient,
  database: string,
  c: AlertsConfig,
  now: Date,
  owners?: OwnerDirectory,
): Promise<WarningReview[]> {
  const [directory, rows] = await Promise.all([
    owners ?? listOwners(ch, database, c.tenant).then((r) => new OwnerDirectory(r)),
    warningStats(ch, database, c, now),
  ]);
  return judgeWarnings(rows, directory, c, now);
}

function warningStats(ch: ClickHouseClient, database: string, c: AlertsConfig, now: Date): Promise<unknown[]> {
  return runDetector(ch, 'persistent_unowned_warning', {
    database,
    tenant: c.tenant,
    now,
    window_days: c.warnings.windowDays,
    min_days_fraction: c.warnings.minDaysFraction,
    retire_after_days: c.warnings.retireAfterDays,
  });
}

function judgeWarnings(rows: unknown[], owners: OwnerDirectory, c: AlertsConfig, now: Date): WarningReview[] {
  return rows.map((raw) => {
    const stats = WarningStatsRow.parse(raw);
    const owner = owners.forWarning(stats.tenant, stats.code, stats.source);
    return { stats, owner, decision: decideWarning(stats, owner, c.warnings, now) };
  });
}
