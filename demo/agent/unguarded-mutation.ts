/**
 * Guard "off". The library has no switch that lets a mutation run past its guard (`onUnsafeEvidence` is
 * `refused` or `review_requested`, never `allowed`), so this is the runtime that declares its plan but enforces
 * nothing, built on the public API only: the call runs as a library tool (same tracer, session sequence, GenAI
 * attributes, result contract, error handling), and the tool relabels its own span as a `mutation` carrying the
 * plan's basis, target count and evidence, with no `tooltrail.guard.decision` (no guard ran). Detectors judge it
 * from the spans alone. One file, so an observe-only mode in the library can replace it.
 */
import type { Attributes } from '@opentelemetry/api';
import { Attr } from '../../contract/index.ts';
import type { MutationPlan, ToolDefinition, Tooltrail } from '../../instrumentation/index.ts';
import type { Mutator, Session } from './mutator.ts';

export function unguardedMutationTool<A extends object, V>(
  tooltrail: Tooltrail,
  definition: ToolDefinition,
  fn: (args: A) => V,
): Mutator<A> {
  // The plan travels beside the arguments (keyed by their identity), so recorded arguments stay the tool's own.
  const plans = new WeakMap<A, MutationPlan>();
  const tool = tooltrail.readTool(definition, (args: A, ctx) => {
    const plan = plans.get(args);
    if (plan !== undefined) ctx.span.setAttributes(planAttributes(ctx.session, plan));
    return fn(args);
  });
  return async (session, args, plan) => {
    plans.set(args, plan);
    const outcome = await tool(session, args);
    return {
      callId: outcome.callId,
      sequence: outcome.sequence,
      decision: 'not_checked',
      findings: [],
      ran: true,
      result: outcome.result,
      recognized: outcome.recognized,
    };
  };
}

/** The plan as the guard would have recorded it: basis, target count, evidence call ids and their snapshots. */
function planAttributes(session: Session, plan: MutationPlan): Attributes {
  const callIds: string[] = [];
  const snapshots = new Set<string>();
  for (const ref of plan.evidence) {
    if (typeof ref === 'string') {
      snapshots.add(ref);
      continue;
    }
    callIds.push(ref.callId);
    const snapshot = session.evidence.byCallId(ref.callId)?.scope?.snapshot;
    if (snapshot !== undefined) snapshots.add(snapshot);
  }
  return {
    [Attr.EFFECT]: 'mutation',
    [Attr.MUTATION_BASIS]: plan.basis,
    [Attr.MUTATION_TARGET_COUNT]: plan.targets.length,
    [Attr.MUTATION_EVIDENCE_CALL_IDS]: callIds,
    [Attr.MUTATION_EVIDENCE_SNAPSHOTS]: [...snapshots],
  };
}
