/**
 * Findings -> Alertmanager v2 alerts. Alertmanager identifies an alert by its label set, so the labels of a
 * finding depend only on what it is (fingerprint, owner, severity...), never on when it was sent: re-sending after
 * an evaluator restart updates the same alert instead of paging again. startsAt is the finding's first_seen.
 */
import type { Finding, FindingKind } from '../findings/finding.ts';

/** Body item of POST /api/v2/alerts (Alertmanager's postableAlert). */
export interface PostableAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL?: string;
}

export const ALERT_NAMES: Readonly<Record<FindingKind, string>> = {
  mutation_after_incomplete_read: 'MutationAfterIncompleteRead',
  absence_mutation_without_complete_evidence: 'AbsenceMutationWithoutCompleteEvidence',
  dangerous_empty_reads: 'DangerousEmptyReads',
  persistent_unowned_warning: 'PersistentUnownedWarning',
  warning_past_deadline: 'WarningPastDeadline',
  warning_retirement_proposed: 'WarningRetirementProposed',
};

/** alertname, severity, owner, team, tenant, tool, agent, fingerprint (+ warning_code/warning_source); no empty values. */
export function alertLabels(f: Finding): Record<string, string> {
  const labels: Record<string, string> = {
    alertname: ALERT_NAMES[f.kind],
    severity: f.severity,
    tenant: f.tenant,
    fingerprint: f.fingerprint,
  };
  const optional: Array<[string, string | null | undefined]> = [
    ['owner', f.owner],
    ['team', f.team],
    ['tool', f.tool],
    ['agent', f.agent],
    ['warning_code', f.warning?.code],
    ['warning_source', f.warning?.source],
  ];
  for (const [k, v] of optional) if (v) labels[k] = v;
  return labels;
}

export function alertAnnotations(f: Finding): Record<string, string> {
  const a: Record<string, string> = { summary: f.summary };
  if (f.reasons.length) a.reasons = f.reasons.join(', ');
  if (f.read_span_ids.length) {
    a.evidence_spans = f.read_span_ids
      .map((span, i) => `${f.read_trace_ids[i] ?? ''}/${span}${f.read_tools[i] ? ` (${f.read_tools[i]})` : ''}`)
      .join(', ');
  }
  if (f.missing_evidence.length) a.missing_evidence = f.missing_evidence.join(', ');
  if (f.session) a.session = f.session;
  if (f.trace_id && f.mutation_span_id) a.mutation_span = `${f.trace_id}/${f.mutation_span_id}`;
  if (f.scope_resource) a.scope_resource = f.scope_resource;
  if (f.target_count !== null) a.target_count = String(f.target_count);
  if (f.mutation_basis) a.mutation_basis = f.mutation_basis;
  a.guard_decision = f.guard_decision ?? 'none';
  if (f.reconstruct) {
    a.reconstruct_command = f.reconstruct.command;
    if (f.reconstruct.url) a.reconstruct_url = f.reconstruct.url;
  }
  if (f.warning) {
    a.warning_days_seen = `${f.warning.days_seen}/${f.warning.window_days}`;
    a.warning_last_seen = f.warning.last_seen;
    a.warning_state = f.warning.state;
    if (f.warning.deadline) a.warning_deadline = f.warning.deadline;
  }
  if (f.rate) a.rate = `${f.rate.incomplete_empty_reads}/${f.rate.total_reads}`;
  if (f.kind === 'dangerous_empty_reads' || f.warning) delete a.guard_decision;
  return a;
}

/** Firing while endsAt is ahead; resolved when endsAt is the resolution time. */
export function toPostableAlert(f: Finding, startsAt: Date, endsAt: Date): PostableAlert {
  const alert: PostableAlert = {
    labels: alertLabels(f),
    annotations: alertAnnotations(f),
    startsAt: startsAt.toISOString(),
    endsAt: endsAt.toISOString(),
  };
  if (f.reconstruct?.url) alert.generatorURL = f.reconstruct.url;
  return alert;
}

/** True when two versions of a finding would be two different Alertmanager alerts. */
export function sameAlert(a: Finding, b: Finding): boolean {
  const la = alertLabels(a);
  const lb = alertLabels(b);
  const keys = new Set([...Object.keys(la), ...Object.keys(lb)]);
  return [...keys].every((k) => la[k] === lb[k]);
}
