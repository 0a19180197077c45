/**
 * The guard step: the one module that reaches the instrumentation package, through its public entry only. Reads
 * the proxy saw go into the session's ledger (`recordRead`); a destructive call gets the package guard's verdict
 * (`judgeMutation`): from the tool's policy (resource, basis, targets, window) when the policy file gives one, else
 * on an explicit plan whose evidence is the session's recent reads that declared no resource either.
 * The package emits no span here (a sampler that records nothing): the proxy's own span carries the decision.
 */
import { AlwaysOffSampler, TracerProvider } from '@opentelemetry/sdk-trace';
import { type GuardDecision, type MutationBasis, type ToolResult, valueAt, valuesAt } from '../contract/index.ts';
import {
  type CursorSelector,
  createTooltrail,
  type GuardFinding,
  type MutationPolicy,
  type ReviewRequest,
  type Session,
  type TraversalState,
} from '../instrumentation/index.ts';

export type GuardMode = 'enforce' | 'review' | 'observe';
export const GUARD_MODES = ['enforce', 'review', 'observe'] as const;

export interface RecordedRead {
  callId: string;
  toolName: string;
  resource: string | undefined;
  result: ToolResult;
  /** The call's arguments: a cursor in them places the read in its traversal. */
  args: unknown;
  /** From the policy file: a JSON pointer or a dotted path to the cursor. */
  cursor: string | undefined;
}

export interface MutationCall {
  callId: string;
  toolName: string;
  args: unknown;
  /** From the policy file; without a resource the call is judged on the session's unscoped reads. */
  resource: string | undefined;
  basis: MutationBasis;
  /** A JSON pointer (`/ids`) or a dotted path (`items.*.id`) into the arguments. */
  targets: string | undefined;
  evidenceMaxAgeMs: number | undefined;
}

export interface GuardJudgement {
  /** What the guard decided (`observe`: what it would have decided). */
  decision: GuardDecision;
  /** False in `observe`: the call goes on whatever the decision. */
  enforced: boolean;
  findings: GuardFinding[];
  review: ReviewRequest | undefined;
  targetCount: number;
  evidenceCallIds: string[];
  evidenceSnapshots: string[];
}

export interface GuardStep {
  /** Records the read as evidence; a page of a cursor traversal says where it stands in it. */
  recordRead(conversationId: string, read: RecordedRead): TraversalState | undefined;
  judge(conversationId: string, call: MutationCall): GuardJudgement;
}

interface SessionState {
  session: Session;
  /** The latest unscoped reads (the evidence of a destructive tool the policy says nothing about). */
  unscoped: string[];
}

const MAX_SESSIONS = 1000;

export function createGuardStep(options: { mode: GuardMode; evidenceWindow: number }): GuardStep {
  const tt = createTooltrail({
    tracerProvider: new TracerProvider({ sampler: new AlwaysOffSampler() }),
    onUnsafeEvidence: options.mode === 'review' ? 'review_requested' : 'refused',
    evidenceLedgerSize: options.evidenceWindow,
  });
  const sessions = new Map<string, SessionState>();
  const stateOf = (conversationId: string): SessionState => {
    let state = sessions.get(conversationId);
    if (state) return state;
    // Oldest session forgotten first: a proxy serving many clients keeps a bounded memory.
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
    state = { session: tt.session({ conversationId, agentName: 'mcp-proxy' }), unscoped: [] };
    sessions.set(conversationId, state);
    return state;
  };

  return {
    recordRead(conversationId, read) {
      const state = stateOf(conversationId);
      const outcome = tt.recordRead(state.session, {
        toolName: read.toolName,
        value: read.result,
        callId: read.callId,
        args: read.args,
        ...(read.resource === undefined ? {} : { resource: read.resource }),
        ...(read.cursor === undefined ? {} : { cursor: cursorSelector(read.cursor) }),
      });
      if (read.resource === undefined && read.result.scope?.resource === undefined) {
        state.unscoped.push(read.callId);
        if (state.unscoped.length > options.evidenceWindow) state.unscoped.shift();
      }
      return outcome.traversal;
    },
    judge(conversationId, call) {
      const state = stateOf(conversationId);
      const targets = call.targets;
      const selector = targets === undefined ? undefined : targets.startsWith('/') ? targets : dotted(targets);
      const verdict =
        call.resource !== undefined
          ? tt.judgeMutation(state.session, {
              toolName: call.toolName,
              args: call.args,
              callId: call.callId,
              policy: {
                resource: call.resource,
                basis: call.basis,
                ...(selector === undefined ? {} : { targets: selector }),
                ...(call.evidenceMaxAgeMs === undefined ? {} : { evidenceWindow: { maxAgeMs: call.evidenceMaxAgeMs } }),
              } satisfies MutationPolicy,
            })
          : tt.judgeMutation(state.session, {
              toolName: call.toolName,
              args: call.args,
              callId: call.callId,
              plan: {
                basis: call.basis,
                targets: selector === undefined ? [] : valuesAt(call.args, targets as string),
                evidence: state.unscoped.map((callId) => ({ callId })),
              },
            });
      return {
        decision: verdict.decision,
        enforced: options.mode !== 'observe',
        findings: verdict.findings,
        review: verdict.review,
        targetCount: verdict.plan?.targets.length ?? 0,
        evidenceCallIds: verdict.evidenceCallIds,
        evidenceSnapshots: verdict.evidenceSnapshots,
      };
    },
  };
}

/** The policy's cursor: a JSON pointer as is, a dotted path as a function of the arguments. */
function cursorSelector(path: string): CursorSelector {
  if (path.startsWith('/')) return path;
  return (args) => {
    const v = valueAt(args, path);
    return typeof v === 'string' || typeof v === 'number' ? v : undefined;
  };
}

/** A dotted path as a target selector: undefined when it finds nothing, so the guard says TARGETS_UNREADABLE. */
function dotted(path: string): (args: unknown) => string[] | undefined {
  return (args) => {
    const found = valuesAt(args, path);
    return found.length > 0 ? found : undefined;
  };
}
