/** One shape for a mutation call, guarded or not, so the agent's code is the same with the guard on and off. */
import type { GuardDecision } from '../../contract/index.ts';
import type {
  GuardFinding,
  MutationOutcome,
  MutationPlan,
  Recognition,
  ReviewRequest,
  ToolDefinition,
  ToolResult,
  Tooltrail,
} from '../../instrumentation/index.ts';

export type Session = ReturnType<Tooltrail['session']>;

export interface MutationCall {
  callId: string;
  sequence: number;
  /** `not_checked`: the guard was off, nothing judged the plan before the call. */
  decision: GuardDecision | 'not_checked';
  findings: GuardFinding[];
  /** What a reviewer would see (also given on `refused`: what would have been needed). */
  review?: ReviewRequest;
  /** Whether the mutation actually ran. */
  ran: boolean;
  /** The tool's result, when it ran, and how the library understood it. */
  result?: ToolResult;
  recognized?: Recognition;
}

export type Mutator<A> = (session: Session, args: A, plan: MutationPlan) => Promise<MutationCall>;

/** A mutation through the library's guard: it runs only if the guard allows the plan. */
export function guardedMutationTool<A, V>(
  tooltrail: Tooltrail,
  definition: ToolDefinition,
  fn: (args: A) => V,
): Mutator<A> {
  const tool = tooltrail.mutationTool<A, unknown, V>(definition, (args) => fn(args));
  return async (session, args, plan) => fromOutcome(await tool(session, args, plan));
}

function fromOutcome(outcome: MutationOutcome): MutationCall {
  if (outcome.decision === 'allowed') {
    return {
      callId: outcome.callId,
      sequence: outcome.sequence,
      decision: 'allowed',
      findings: [],
      ran: true,
      result: outcome.result,
      recognized: outcome.recognized,
    };
  }
  return {
    callId: outcome.callId,
    sequence: outcome.sequence,
    decision: outcome.decision,
    findings: outcome.findings,
    review: outcome.review,
    ran: false,
  };
}
