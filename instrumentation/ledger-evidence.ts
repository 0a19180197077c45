/**
 * A mutation called with arguments only (as a model calls it) gets its plan from its tool's policy: the targets
 * from the arguments, the evidence from the session's own reads of the resource. The caller names nothing, so there
 * is nothing for a narrative to talk around.
 */
import type { GuardFinding, MutationPlan } from './guard.ts';
import type { MutationPolicy } from './policy.ts';
import { readTargets } from './policy.ts';
import type { EvidenceLedger, EvidenceRecord } from './session.ts';
import { evidenceUnits } from './traversal.ts';

export interface DerivedPlan {
  plan: MutationPlan;
  findings: GuardFinding[];
}

/**
 * The evidence is every complete read of the resource within the window (a cursor traversal being one read);
 * failing that, the latest read within the window (so the guard says why it is short); failing that, the latest
 * read at all (so it says it is stale).
 */
export function planFromLedger<A>(
  policy: MutationPolicy<A>,
  args: A,
  ledger: EvidenceLedger,
  now: number,
  maxAgeMs: number,
): DerivedPlan {
  const findings: GuardFinding[] = [];
  const read = readTargets(policy.targets, args);
  if (!read.ok) findings.push({ code: 'TARGETS_UNREADABLE', message: `cannot read the targets: ${read.problem}` });
  // A traversal's pages count as one read: the traversal.
  const reads = evidenceUnits(ledger.byResource(policy.resource));
  const inWindow = reads.filter((r) => now - r.at <= maxAgeMs);
  const complete = inWindow.filter((r) => r.complete);
  const chosen: EvidenceRecord[] =
    complete.length > 0 ? complete : inWindow.length > 0 ? inWindow.slice(0, 1) : reads.slice(0, 1);
  return {
    plan: {
      basis: policy.basis,
      targets: read.ok ? read.targets : [],
      // Oldest first, as a caller would list them.
      evidence: chosen.map((r) => ({ callId: r.callId })).reverse(),
      resource: policy.resource,
    },
    findings,
  };
}
