/**
 * The mutation guard: the rule a prompt cannot enforce. A mutation declares its basis and the evidence it relies
 * on; evidence that is incomplete, unknown, or (for an absence) scoped to nothing is never silently allowed.
 * Pure: it judges records the session kept, never what the caller claims about them.
 */
import type { GuardDecision, GuardFindingCode, MutationBasis, ReasonCode } from '../contract/codes.ts';
import type { Reason } from '../contract/envelope.ts';
import type { EvidenceRecord } from './session.ts';

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

export type RecoveryOption =
  | { kind: 'retry_with_longer_deadline'; minimumSeconds?: number; description: string }
  | { kind: 'narrow_to_returned_ids'; targets: string[]; targetCount: number; description: string }
  | { kind: 'abandon'; description: string };

export interface EvidenceSummary {
  callId: string;
  toolName: string;
  status: EvidenceRecord['status'];
  complete: boolean;
  itemCount?: number;
  snapshot?: string;
  reasons: ReasonCode[];
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
        const codes = r.reasons.map((x) => x.code).join(', ') || r.status;
        findings.push({
          code: 'EVIDENCE_INCOMPLETE',
          message: `${label} (${r.toolName}) was not complete: ${codes}`,
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

  const returned = returnedIds(relied);
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

  const decision: GuardDecision = findings.length === 0 ? 'allowed' : input.onUnsafeEvidence;
  const verdict: GuardVerdict = {
    decision,
    findings,
    evidenceCallIds: [...callIds],
    evidenceSnapshots: [...snapshots],
  };
  if (decision !== 'allowed') verdict.review = reviewRequest({ ...input, plan }, findings, relied, returned, verdict);
  return verdict;
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
): ReviewRequest {
  const { plan } = input;
  const incompleteReasons = relied.flatMap((r) => r.reasons.map((x) => ({ ...x, evidenceCallId: r.callId })));
  const visibility = [...new Set(relied.flatMap((r) => (r.scope?.visibility ? [r.scope.visibility] : [])))];
  const resource = plan.resource ?? relied.find((r) => r.scope)?.scope?.resource;
  const options: RecoveryOption[] = [];
  const minimumSeconds = Math.max(
    0,
    ...relied.map((r) => (r.continuation.kind === 'retry_with_deadline' ? (r.continuation.minimum_seconds ?? 0) : 0)),
  );
  options.push({
    kind: 'retry_with_longer_deadline',
    ...(minimumSeconds > 0 ? { minimumSeconds } : {}),
    description: 'read again with a longer deadline (and page budget) until the read is complete, then re-plan',
  });
  if (plan.basis === 'presence' && returned !== undefined) {
    const narrowed = plan.targets.filter((t) => returned.has(t));
    options.push({
      kind: 'narrow_to_returned_ids',
      targets: narrowed,
      targetCount: narrowed.length,
      description: 'act only on the targets the reads actually returned, each re-checked at execution',
    });
  }
  options.push({ kind: 'abandon', description: 'do not perform this mutation' });
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
  return s;
}
