/**
 * One shape for a mutation call, guarded or not, so the agent's code is the same with the guard on and off. Both go
 * through the library's mutation tool; `off` is the library's own per-call switch (the span then carries the plan
 * and no `tooltrail.guard.decision`).
 */
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

/** `on`: the library's guard judges every mutation. `off`: mutations run unjudged. */
export type GuardMode = 'on' | 'off';

export interface MutationCall {
  callId: string;
  sequence: number;
  /** `not_checked`: the guard was off, nothing judged the plan before the call. */
  decision: GuardDecision | 'not_checked';
  findings: GuardFinding[];
  /** What a reviewer would see (also given on `refused`: what would have been needed). */
  review?: ReviewRequest;
  /** Guard off: what the guard would have decided, had it been on. */
  unenforced?: { decision: GuardDecision; findings: GuardFinding[] };
  /** Whether the mutation actually ran. */
  ran: boolean;
  /** The tool's result, when it ran, and how the library understood it. */
  result?: ToolResult;
  recognized?: Recognition;
}

export type Mutator<A> = (session: Session, args: A, plan: MutationPlan) => Promise<MutationCall>;

/** A mutation tool: with the guard on it runs only if the guard allows the plan; off, it runs unjudged. */
export function mutationTool<A, V>(
  tooltrail: Tooltrail,
  definition: ToolDefinition,
  fn: (args: A) => V,
  guard: GuardMode,
): Mutator<A> {
  const tool = tooltrail.mutationTool<A, unknown, V>(definition, (args) => fn(args));
  // Explicit both ways: the run's guard mode decides, whatever the tooltrail's configured default.
  const call = { guard: guard === 'on' ? ('enforce' as const) : ('off' as const) };
  return async (session, args, plan) => fromOutcome(await tool(session, args, plan, call));
}

function fromOutcome(outcome: MutationOutcome): MutationCall {
  const { callId, sequence } = outcome;
  switch (outcome.decision) {
    case 'allowed':
      return { callId, sequence, decision: 'allowed', findings: [], ran: true, ...ran(outcome) };
    case 'not_checked':
      return {
        callId,
        sequence,
        decision: 'not_checked',
        findings: [],
        unenforced: outcome.unenforced,
        ran: true,
        ...ran(outcome),
      };
    default:
      return {
        callId,
        sequence,
        decision: outcome.decision,
        findings: outcome.findings,
        review: outcome.review,
        ran: false,
      };
  }
}

function ran(outcome: { result: ToolResult; recognized: Recognition }): Pick<MutationCall, 'result' | 'recognized'> {
  return { result: outcome.result, recognized: outcome.recognized };
}
