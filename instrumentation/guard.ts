/**
 * The mutation guard: the rule a prompt cannot enforce. A mutation declares its basis and the evidence it relies
 * on; evidence that is incomplete, unknown, or (for an absence) scoped to nothing is never silently allowed.
 * Pure: it judges records the session kept, never what the caller claims about them.
 */
import type {
  GuardDecision,
  GuardFindingCode,
  MutationBasis,
  Reason,
  ReasonCode,
  TraversalBreak,
  Warning,
  WarningCode,
} from '../contract/index.ts';
import type { RecoveryOption } from './recovery.ts';
import { recoveryOptions } from './recovery.ts';
import type { EvidenceRecord } from './session.ts';

export type { RecoveryOption };

/** A read relied on: its outcome (anything with the read's `callId`) or a snapshot token the session has read. */
export type EvidenceRef = string | { readonly callId: string };

export interface MutationPlan {
  /** `presence`: acts on items a read returned. `absence`: acts on what a read did not return. */
  basis: MutationBasis;
  /** Ids of what the mutation touches. */
  targets: readonly string[];
  evidence: readonly EvidenceRef[];
  /** The resource the mutation acts in (`service_accounts`); checked against the evidence's scope. */
  resource?: string;
}

export type { GuardFindingCode };

export interface GuardFinding {
  code: GuardFindingCode;
  message: string;
  /** The evidence call the finding is about, when it is about one. */
  callId?: string;
}

export interface EvidenceSummary {
  callId: string;
  toolName: string;
  status: EvidenceRecord['status'];
  complete: boolean;
  itemCount?: number;
  snapshot?: string;
  reasons: ReasonCode[];
  /** A cursor traversal: how many pages it had. */
  pages?: number;
  /** A cursor traversal that can no longer be complete: why. */
  traversalBreak?: TraversalBreak;
}

/** What a human needs to decide: the action, the targets, the scope, why the evidence is short, the options. */
export interface ReviewRequest {
  action: string;
  callId: string;
  /** Absent when the mutation declared no plan at all. */
  basis?: MutationBasis;
  targets: readonly string[];
  targetCount: number;
  scope: { resource?: string; visibility: string[]; snapshots: string[] };
  incompleteReasons: (Reason & { evidenceCallId: string })[];
  findings: GuardFinding[];
  evidence: EvidenceSummary[];
  options: RecoveryOption[];
}

export interface GuardVerdict {
  decision: GuardDecision;
  findings: GuardFinding[];
  /** Present unless the decision is `allowed`. */
  review?: ReviewRequest;
  evidenceCallIds: string[];
  evidenceSnapshots: string[];
}

export interface GuardInput {
  action: string;
  callId: string;
  /** undefined: the caller declared no basis and no evidence (e.g. an MCP tool called without a plan). */
  plan: MutationPlan | undefined;
  /** The session's records for each evidence ref, in order (empty = the session never saw that read). */
  resolved: readonly { ref: EvidenceRef; records: readonly EvidenceRecord[] }[];
  onUnsafeEvidence: Exclude<GuardDecision, 'allowed'>;
  /** When the mutation is judged (ms, same clock as the records' `at`). */
  now: number;
  /** Evidence older than this is `EVIDENCE_STALE`. */
  maxAgeMs: number;
  /** `ledger`: the plan was derived from the tool's policy and the session's reads, not declared by the caller. */
  origin?: 'plan' | 'ledger';
  /** Problems found while deriving the plan (targets that could not be read from the arguments). */
  planFindings?: readonly GuardFinding[];
  /** Why a warning on the evidence blocks this mutation (its code's policy, or it was escalated), or undefined. */
  warningBlocks?: (warning: Warning, basis: MutationBasis) => string | undefined;
  /** Targets the tool's `verifyTarget` hook refused just before execution, and why. */
  unqualified?: readonly { target: string; why: string }[];
}

/** A warning that blocked a mutation, for the review request's `resolve_warning` option. */
export interface BlockingWarning {
  code: WarningCode;
  source: string;
}

export function decideMutation(input: GuardInput): GuardVerdict {
  const { plan } = input;
  if (plan === undefined) return planless(input);
  const findings: GuardFinding[] = [...(input.planFindings ?? [])];
  const relied: EvidenceRecord[] = [];
  const callIds = new Set<string>();
  const snapshots = new Set<string>();

  if (plan.evidence.length === 0) {
    const message =
      input.origin === 'ledger'
        ? `the session has no read of ${plan.resource ?? 'the resource'} for this ${plan.basis}-based mutation to rely on`
        : `a ${plan.basis}-based mutation declared no evidence`;
    findings.push({ code: 'NO_EVIDENCE', message });
  }
  for (const { ref, records } of input.resolved) {
    const label = typeof ref === 'string' ? `snapshot ${ref}` : `read ${ref.callId}`;
    if (typeof ref === 'string') snapshots.add(ref);
    else callIds.add(ref.callId);
    if (records.length === 0) {
      findings.push({
        code: 'EVIDENCE_NOT_FOUND',
        message: `${label} is unknown to this session: its completeness cannot be checked`,
        ...(typeof ref === 'string' ? {} : { callId: ref.callId }),
      });
      continue;
    }
    // A snapshot is covered if any read of it was complete; otherwise every read of it is what we relied on.
    const complete = records.filter((r) => r.complete);
    const used = complete.length > 0 ? complete.slice(0, 1) : records;
    for (const r of used) {
      relied.push(r);
      callIds.add(r.callId);
      if (r.scope?.snapshot) snapshots.add(r.scope.snapshot);
    }
    if (complete.length === 0) {
      for (const r of used) {
        const codes = r.reasons.map((x) => x.code).join(', ') || r.traversal?.break?.reason || r.status;
        findings.push({
          code: 'EVIDENCE_INCOMPLETE',
          message: `${label} (${r.toolName}) was not complete: ${codes}${traversalNote(r)}`,
          callId: r.callId,
        });
      }
    }
  }

  for (const r of relied) {
    const age = input.now - r.at;
    if (age > input.maxAgeMs) {
      findings.push({
        code: 'EVIDENCE_STALE',
        message: `read ${r.callId} (${r.toolName}) is ${Math.round(age / 1000)} s old; evidence may be at most ${Math.round(input.maxAgeMs / 1000)} s old`,
        callId: r.callId,
      });
    }
    if (plan.basis === 'absence' && r.complete && !r.scope) {
      findings.push({
        code: 'EVIDENCE_SCOPE_UNDECLARED',
        message: `read ${r.callId} (${r.toolName}) declared no scope: an absence claim needs a defined scope`,
        callId: r.callId,
      });
    }
    if (plan.resource !== undefined && r.scope && r.scope.resource !== plan.resource) {
      findings.push({
        code: 'SCOPE_MISMATCH',
        message: `read ${r.callId} covered ${r.scope.resource}, the mutation acts on ${plan.resource}`,
        callId: r.callId,
      });
    }
  }

  const blocking: BlockingWarning[] = [];
  if (input.warningBlocks) {
    for (const r of relied) {
      for (const w of r.warnings ?? []) {
        const why = input.warningBlocks(w, plan.basis);
        if (why === undefined) continue;
        if (!blocking.some((b) => b.code === w.code && b.source === w.source))
          blocking.push({ code: w.code, source: w.source });
        findings.push({
          code: 'WARNING_BLOCKS_MUTATION',
          message: `read ${r.callId} (${r.toolName}) warned ${w.code} from ${w.source}: ${why}`,
          callId: r.callId,
        });
      }
    }
  }

  const returned = returnedIds(relied);
  if (plan.targets.length > 0 && relied.length > 0 && returned === undefined) {
    // Never a silent pass: without ids the guard cannot tell which targets the reads returned.
    const blind = relied.filter((r) => r.itemIds === undefined);
    findings.push({
      code: 'TARGETS_UNVERIFIABLE',
      message: `${blind.map((r) => `read ${r.callId} (${r.toolName})`).join(', ')} returned items without ids (or more than the guard remembers): the ${plan.targets.length} targets cannot be checked against it`,
      ...(blind[0] ? { callId: blind[0].callId } : {}),
    });
  }
  if (plan.basis === 'presence' && returned !== undefined) {
    const outside = plan.targets.filter((t) => !returned.has(t));
    if (outside.length > 0) {
      findings.push({
        code: 'TARGETS_NOT_IN_EVIDENCE',
        message: `${outside.length} of ${plan.targets.length} targets were not returned by the evidence (e.g. ${outside[0]})`,
      });
    }
  }

  if (plan.basis === 'absence' && returned !== undefined) {
    // Acting on what a read did not return, on items that it did return, contradicts the basis.
    const present = plan.targets.filter((t) => returned.has(t));
    if (present.length > 0) {
      findings.push({
        code: 'TARGETS_PRESENT_IN_EVIDENCE',
        message: `${present.length} of ${plan.targets.length} absence-based targets were returned by the evidence (e.g. ${present[0]})`,
      });
    }
  }

  const unqualified = input.unqualified ?? [];
  if (unqualified.length > 0) {
    findings.push({
      code: 'TARGET_NO_LONGER_QUALIFIES',
      message: `${unqualified.length} of ${plan.targets.length} targets no longer qualify when re-checked (e.g. ${unqualified[0]?.target}: ${unqualified[0]?.why})`,
    });
  }

  const decision: GuardDecision = findings.length === 0 ? 'allowed' : input.onUnsafeEvidence;
  const verdict: GuardVerdict = {
    decision,
    findings,
    evidenceCallIds: [...callIds],
    evidenceSnapshots: [...snapshots],
  };
  if (decision !== 'allowed') {
    verdict.review = reviewRequest({ ...input, plan }, findings, relied, returned, verdict, blocking);
  }
  return verdict;
}

/** How a traversal fell short: where it broke, or the page it stopped at. */
function traversalNote(r: EvidenceRecord): string {
  const t = r.traversal;
  if (t === undefined) return '';
  if (t.break !== undefined) {
    const where = t.break.page === undefined ? 'at its first read' : `at page ${t.break.page}`;
    return ` (a cursor traversal of ${t.pages} page${t.pages === 1 ? '' : 's'} that broke ${where}: ${t.break.reason}, ${t.break.detail})`;
  }
  return ` (a cursor traversal stopped at page ${t.pages})`;
}

/** Ids returned by the relied reads, when every one of them reported item ids. */
function returnedIds(relied: readonly EvidenceRecord[]): Set<string> | undefined {
  if (relied.length === 0 || relied.some((r) => r.itemIds === undefined)) return undefined;
  const ids = new Set<string>();
  for (const r of relied) for (const id of r.itemIds ?? []) ids.add(id);
  return ids;
}

function planless(input: GuardInput): GuardVerdict {
  const findings: GuardFinding[] = [
    { code: 'NO_PLAN', message: 'the mutation was called without declaring its basis, targets and evidence' },
  ];
  return {
    decision: input.onUnsafeEvidence,
    findings,
    evidenceCallIds: [],
    evidenceSnapshots: [],
    review: {
      action: input.action,
      callId: input.callId,
      targets: [],
      targetCount: 0,
      scope: { visibility: [], snapshots: [] },
      incompleteReasons: [],
      findings,
      evidence: [],
      options: [{ kind: 'abandon', description: 'do not perform this mutation' }],
    },
  };
}

function reviewRequest(
  input: GuardInput & { plan: MutationPlan },
  findings: GuardFinding[],
  relied: readonly EvidenceRecord[],
  returned: Set<string> | undefined,
  verdict: GuardVerdict,
  blocking: readonly BlockingWarning[],
): ReviewRequest {
  const { plan } = input;
  const incompleteReasons = relied.flatMap((r) => r.reasons.map((x) => ({ ...x, evidenceCallId: r.callId })));
  const visibility = [...new Set(relied.flatMap((r) => (r.scope?.visibility ? [r.scope.visibility] : [])))];
  const resource = plan.resource ?? relied.find((r) => r.scope)?.scope?.resource;
  const options = recoveryOptions({
    basis: plan.basis,
    reads: relied.map((r) => ({
      reasons: r.reasons,
      continuation: r.continuation,
      failed: r.status === 'error',
      ...(r.scope?.visibility !== undefined ? { visibility: r.scope.visibility } : {}),
      ...(r.traversal?.break !== undefined ? { broken: r.traversal.break.reason } : {}),
    })),
    findings,
    returnedTargets: returned === undefined ? undefined : plan.targets.filter((t) => returned.has(t)),
    verifiedTargets:
      input.unqualified && input.unqualified.length > 0
        ? plan.targets.filter((t) => !input.unqualified?.some((u) => u.target === t))
        : undefined,
    blockingWarnings: blocking,
  });
  return {
    action: input.action,
    callId: input.callId,
    basis: plan.basis,
    targets: plan.targets,
    targetCount: plan.targets.length,
    scope: { ...(resource !== undefined ? { resource } : {}), visibility, snapshots: verdict.evidenceSnapshots },
    incompleteReasons,
    findings,
    evidence: relied.map(summarize),
    options,
  };
}

function summarize(r: EvidenceRecord): EvidenceSummary {
  const s: EvidenceSummary = {
    callId: r.callId,
    toolName: r.toolName,
    status: r.status,
    complete: r.complete,
    reasons: r.reasons.map((x) => x.code),
  };
  if (r.itemCount !== undefined) s.itemCount = r.itemCount;
  if (r.scope?.snapshot !== undefined) s.snapshot = r.scope.snapshot;
  if (r.traversal !== undefined) s.pages = r.traversal.pages;
  if (r.traversal?.break !== undefined) s.traversalBreak = r.traversal.break.reason;
  return s;
}
