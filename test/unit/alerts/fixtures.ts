/** Findings and warning facts for the alerts unit tests. */
import type { WarningStatsRow } from '../../../alerts/detectors/rows.ts';
import type { Finding } from '../../../alerts/findings/finding.ts';
import type { FindingRecord } from '../../../alerts/findings/store.ts';

export const NOW = new Date('2026-06-15T12:00:00.000Z');
export const minutesAgo = (m: number, from = NOW) => new Date(from.getTime() - m * 60_000);

export function mutationFinding(over: Partial<Finding> = {}): Finding {
  return {
    kind: 'mutation_after_incomplete_read',
    fingerprint: '00000000000000a1',
    severity: 'critical',
    score: 9,
    tenant: 'acme',
    session: 'sess-1',
    trace_id: 'trace-1',
    mutation_span_id: 'span-m',
    read_span_ids: ['span-r1', 'span-r2'],
    read_trace_ids: ['trace-1', 'trace-1'],
    read_tools: ['list_accounts', 'list_accounts'],
    reasons: ['MORE_PAGES_AVAILABLE', 'COMPLETENESS_UNKNOWN'],
    missing_evidence: [],
    owner: 'iam-oncall',
    team: 'identity',
    tool: 'delete_accounts',
    agent: 'cleaner',
    scope_resource: 'service_accounts',
    mutation_basis: 'absence',
    target_count: 12,
    guard_decision: 'allowed',
    incomplete_empty: true,
    event_time: minutesAgo(10).toISOString(),
    summary: 'delete_accounts followed an incomplete read',
    warning: null,
    rate: null,
    reconstruct: { command: 'tooltrail reconstruct --finding 00000000000000a1', url: null },
    ...over,
  };
}

export function record(finding: Finding, over: Partial<FindingRecord> = {}): FindingRecord {
  return {
    finding,
    first_seen: minutesAgo(9),
    last_seen: minutesAgo(1),
    resolved_at: null,
    resolution: '',
    alert_status: 'firing',
    last_sent_at: minutesAgo(1),
    ...over,
  };
}

const DAY = 86_400_000;
export const daysAgo = (d: number) => new Date(NOW.getTime() - d * DAY).toISOString();

export function warningStats(over: Partial<WarningStatsRow> = {}): WarningStatsRow {
  return {
    tenant: 'acme',
    code: 'STALE_INDEX',
    source: 'accounts-index',
    days_seen: 80,
    occurrences: 4000,
    first_seen: daysAgo(119),
    last_seen: daysAgo(0),
    tools: ['list_accounts'],
    agents: ['cleaner'],
    persistent: true,
    stale: false,
    state: 'active',
    due_at: null,
    state_changed_at: null,
    ...over,
  };
}
