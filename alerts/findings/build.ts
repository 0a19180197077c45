/** Detector rows -> findings: owner, fingerprint, summary and the reconstruction pointers. */

import type {
  AbsenceMutationRow,
  DangerousEmptyReadsRow,
  MutationAfterIncompleteReadRow,
  WarningStatsRow,
} from '../detectors/rows.ts';
import { formatDuration } from '../duration.ts';
import type { ResolvedOwner } from '../owners/resolve.ts';
import type { WarningDecision } from '../warnings/lifecycle.ts';
import type { Finding, FindingKind, Severity } from './finding.ts';
import { fingerprint } from './fingerprint.ts';

const nullIfEmpty = (s: string): string | null => (s === '' ? null : s);

/** `tooltrail reconstruct --finding <fp>`, and the configured link with {session} {fingerprint} {trace_id} filled. */
export function reconstructPointers(
  urlTemplate: string,
  fp: string,
  session: string,
  traceId: string,
): NonNullable<Finding['reconstruct']> {
  const url =
    urlTemplate === ''
      ? null
      : urlTemplate
          .replaceAll('{session}', encodeURIComponent(session))
          .replaceAll('{fingerprint}', encodeURIComponent(fp))
          .replaceAll('{trace_id}', encodeURIComponent(traceId));
  return { command: `tooltrail reconstruct --finding ${fp}  (or: tooltrail reconstruct --session ${session})`, url };
}

function base(
  kind: FindingKind,
  fp: string,
  tenant: string,
  severity: Severity,
  score: number,
  owner: ResolvedOwner | null,
) {
  return {
    kind,
    fingerprint: fp,
    severity,
    score,
    tenant,
    owner: owner?.owner ?? null,
    team: owner ? nullIfEmpty(owner.team) : null,
    session: null,
    trace_id: null,
    mutation_span_id: null,
    read_span_ids: [],
    read_trace_ids: [],
    read_tools: [],
    reasons: [],
    missing_evidence: [],
    tool: null,
    agent: null,
    scope_resource: null,
    mutation_basis: null,
    target_count: null,
    guard_decision: null,
    incomplete_empty: false,
    warning: null,
    rate: null,
    reconstruct: null,
  } satisfies Omit<Finding, 'event_time' | 'summary'>;
}

function describeMutation(r: MutationAfterIncompleteReadRow | AbsenceMutationRow): string {
  const targets = r.target_count === null ? 'unknown number of' : String(r.target_count);
  const guard = r.guard_decision === '' ? 'no guard' : `guard ${r.guard_decision}`;
  return `${r.tool_name} (${r.mutation_basis || 'unknown basis'}, ${targets} targets, ${guard}) in session ${r.session}`;
}

export function mutationAfterIncompleteRead(
  r: MutationAfterIncompleteReadRow,
  owner: ResolvedOwner | null,
  reconstructUrl: string,
): Finding {
  const fp = fingerprint(r.kind, r.tenant, r.trace_id, r.mutation_span_id);
  const resource = r.scope_resource || 'its evidence';
  return {
    ...base(r.kind, fp, r.tenant, r.severity, r.score, owner),
    ...mutationFields(r),
    read_span_ids: r.read_span_ids,
    read_trace_ids: r.read_trace_ids,
    read_tools: r.read_tool_names,
    reasons: r.reasons,
    incomplete_empty: r.incomplete_empty,
    summary:
      `${describeMutation(r)} followed ${r.read_span_ids.length} incomplete read(s) of ${resource}` +
      ` (${r.reasons.join(', ') || 'no reason given'})${r.incomplete_empty ? ', one of them empty' : ''}`,
    reconstruct: reconstructPointers(reconstructUrl, fp, r.session, r.trace_id),
  };
}

export function absenceMutationWithoutCompleteEvidence(
  r: AbsenceMutationRow,
  owner: ResolvedOwner | null,
  reconstructUrl: string,
): Finding {
  const fp = fingerprint(r.kind, r.tenant, r.trace_id, r.mutation_span_id);
  const why = r.missing_evidence.length
    ? `its evidence ${r.missing_evidence.join(', ')} was never read completely`
    : `no read of ${r.scope_resource || 'its resource'} came before it`;
  return {
    ...base(r.kind, fp, r.tenant, r.severity, r.score, owner),
    ...mutationFields(r),
    missing_evidence: r.missing_evidence,
    summary: `${describeMutation(r)} acted on an absence, but ${why}`,
    reconstruct: reconstructPointers(reconstructUrl, fp, r.session, r.trace_id),
  };
}

function mutationFields(r: MutationAfterIncompleteReadRow | AbsenceMutationRow) {
  return {
    session: r.session,
    trace_id: r.trace_id,
    mutation_span_id: r.mutation_span_id,
    tool: nullIfEmpty(r.tool_name),
    agent: nullIfEmpty(r.agent_name),
    scope_resource: nullIfEmpty(r.scope_resource),
    mutation_basis: nullIfEmpty(r.mutation_basis),
    target_count: r.target_count,
    guard_decision: nullIfEmpty(r.guard_decision),
    event_time: r.mutation_time,
  };
}

/** Severity of a rate: warning at the threshold, critical at twice it (or when every read was empty). */
export function dangerousEmptyReads(
  r: DangerousEmptyReadsRow,
  owner: ResolvedOwner | null,
  minRate: number,
  windowSeconds: number,
  until: Date,
): Finding {
  const kind = 'dangerous_empty_reads';
  const critical = r.rate >= Math.min(1, 2 * minRate);
  const fp = fingerprint(kind, r.tenant, r.tool_name, r.reason);
  const pct = (100 * r.rate).toFixed(1);
  return {
    ...base(kind, fp, r.tenant, critical ? 'critical' : 'warning', critical ? 2 : 1, owner),
    tool: nullIfEmpty(r.tool_name),
    reasons: r.reason === '' ? [] : [r.reason],
    incomplete_empty: true,
    event_time: until.toISOString(),
    rate: {
      reason: r.reason,
      incomplete_empty_reads: r.incomplete_empty_reads,
      total_reads: r.total_reads,
      rate: r.rate,
      window_seconds: windowSeconds,
    },
    summary:
      `${r.tool_name}: ${r.incomplete_empty_reads} of ${r.total_reads} reads (${pct}%) came back incomplete and` +
      ` empty (${r.reason || 'no reason given'}) in the last ${formatDuration(windowSeconds)}`,
  };
}

const WARNING_KIND: Record<'escalate' | 'remind' | 'propose_retirement', FindingKind> = {
  escalate: 'persistent_unowned_warning',
  remind: 'warning_past_deadline',
  propose_retirement: 'warning_retirement_proposed',
};

/** A warning decision that asks for someone: escalate (no owner), remind (the owner), propose retirement. */
export function warningFinding(
  w: WarningStatsRow,
  decision: WarningDecision & { action: 'escalate' | 'remind' | 'propose_retirement' },
  owner: ResolvedOwner | null,
  windowDays: number,
): Finding {
  const kind = WARNING_KIND[decision.action];
  const fp = fingerprint(kind, w.tenant, w.code, w.source);
  const seen = `seen on ${w.days_seen} of the last ${windowDays} days`;
  const summary = {
    escalate: `${w.code} from ${w.source} ${seen} and nobody owns it: assign an owner (tooltrail owners set warning ${w.code} --source ${w.source} --owner ...) or retire it`,
    remind: `${w.code} from ${w.source} still ${seen}, past ${owner?.owner ?? 'its owner'}'s deadline ${decision.deadline ?? ''}`,
    propose_retirement: `${w.code} from ${w.source} not seen since ${w.last_seen}: retire it (tooltrail warnings retire ${w.code} ${w.source})`,
  }[decision.action];
  const severity: Severity = decision.action === 'propose_retirement' ? 'info' : 'warning';
  return {
    ...base(kind, fp, w.tenant, severity, severity === 'info' ? 0 : 1, owner),
    tool: w.tools.length === 1 ? (w.tools[0] ?? null) : null,
    agent: w.agents.length === 1 ? (w.agents[0] ?? null) : null,
    event_time: w.last_seen,
    warning: {
      code: w.code,
      source: w.source,
      days_seen: w.days_seen,
      window_days: windowDays,
      occurrences: w.occurrences,
      first_seen: w.first_seen,
      last_seen: w.last_seen,
      state: decision.state,
      deadline: decision.deadline,
    },
    summary,
  };
}
