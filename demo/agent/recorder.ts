/** Collects the agent's calls into an AgentRunSummary as they happen. */
import type { MutationPlan, ReadOutcome, ToolResult } from '../../instrumentation/index.ts';
import { completenessState, nextStep } from '../../instrumentation/index.ts';
import type { Mutator, Session } from './mutator.ts';
import type { EvidenceLink, MutationRef, ResultSummary, ToolCallSummary } from './run-summary.ts';

export class RunRecorder {
  readonly calls: ToolCallSummary[] = [];
  readonly #tools = new Map<string, { sequence: number; tool: string }>();

  /** Make a read and record what it returned. */
  async read<T, V>(tool: string, intent: string, call: Promise<ReadOutcome<T, V>>): Promise<ReadOutcome<T, V>> {
    const outcome = await call;
    this.#tools.set(outcome.callId, { sequence: outcome.sequence, tool });
    this.calls.push({
      sequence: outcome.sequence,
      callId: outcome.callId,
      tool,
      effect: 'read',
      intent,
      result: summarizeResult(outcome.result, outcome.recognized),
    });
    return outcome;
  }

  /** Attempt a mutation and record the plan, the guard's decision and the result if it ran. */
  async mutate<A>(
    tool: string,
    intent: string,
    mutator: Mutator<A>,
    session: Session,
    args: A,
    plan: MutationPlan,
  ): Promise<ToolCallSummary> {
    const out = await mutator(session, args, plan);
    const evidence: EvidenceLink[] = plan.evidence.flatMap((ref) => {
      if (typeof ref === 'string') return [];
      const known = this.#tools.get(ref.callId);
      return [{ callId: ref.callId, ...(known ? { sequence: known.sequence, tool: known.tool } : {}) }];
    });
    const entry: ToolCallSummary = {
      sequence: out.sequence,
      callId: out.callId,
      tool,
      effect: 'mutation',
      intent,
      mutation: {
        basis: plan.basis,
        targets: [...plan.targets],
        evidence,
        guard: out.decision,
        findings: out.findings,
        ...(out.review ? { review: out.review } : {}),
        ...(out.unenforced ? { unenforced: out.unenforced } : {}),
        ran: out.ran,
      },
    };
    if (out.result) entry.result = summarizeResult(out.result, out.recognized ?? 'contract');
    this.calls.push(entry);
    return entry;
  }

  /** What the agent concluded from its last call. */
  conclude(text: string): void {
    const last = this.calls.at(-1);
    if (last) last.conclusion = text;
  }

  mutations(): { ran: MutationRef[]; refused: MutationRef[]; reviewRequested: MutationRef[] } {
    const out = { ran: [] as MutationRef[], refused: [] as MutationRef[], reviewRequested: [] as MutationRef[] };
    for (const c of this.calls) {
      if (!c.mutation) continue;
      const ref = { sequence: c.sequence, tool: c.tool, basis: c.mutation.basis, targets: c.mutation.targets };
      if (c.mutation.ran) out.ran.push(ref);
      else if (c.mutation.guard === 'review_requested') out.reviewRequested.push(ref);
      else out.refused.push(ref);
    }
    return out;
  }
}

function summarizeResult(result: ToolResult, recognized: ResultSummary['recognized']): ResultSummary {
  const summary: ResultSummary = {
    status: result.status,
    complete: result.completeness.complete,
    state: completenessState(result),
    recognized,
    reasons: result.completeness.reasons,
    warnings: result.warnings,
    continuation: result.completeness.continuation.kind,
    nextStep: nextStep(result),
  };
  if (result.items) summary.itemCount = result.items.length;
  if (result.scope) summary.scope = result.scope;
  if (result.pagination) summary.pages = result.pagination.pages;
  return summary;
}
