/**
 * The guard step: the one module that reaches the instrumentation package, through its public entry only. Reads
 * the proxy saw are recorded into the session's ledger; a destructive call gets the package guard's decision on a
 * MutationPlan built from the policy and the session's recent reads of the same resource. The package emits no
 * span here (a sampler that records nothing): the proxy's own span carries the decision.
 * Built on the public wrappers (`readTool`/`mutationTool`); a dedicated ledger API can replace them in this file.
 */
import { AlwaysOffSampler, BasicTracerProvider } from '@opentelemetry/sdk-trace-base';
import type { GuardDecision, MutationBasis } from '../contract/codes.ts';
import type { ToolResult } from '../contract/envelope.ts';
import {
  createTooltrail,
  type GuardFinding,
  type MutationPlan,
  type ReviewRequest,
  type Session,
  type Tooltrail,
} from '../instrumentation/index.ts';

export type GuardMode = 'enforce' | 'review' | 'observe';
export const GUARD_MODES = ['enforce', 'review', 'observe'] as const;

export interface RecordedRead {
  callId: string;
  toolName: string;
  resource: string | undefined;
  result: ToolResult;
}

export interface MutationCall {
  callId: string;
  toolName: string;
  resource: string | undefined;
  basis: MutationBasis;
  targets: string[];
}

export interface GuardJudgement {
  /** What the guard decided (`observe`: what it would have decided). */
  decision: GuardDecision;
  /** False in `observe`: the call goes on whatever the decision. */
  enforced: boolean;
  findings: GuardFinding[];
  review: ReviewRequest | undefined;
  evidenceCallIds: string[];
  evidenceSnapshots: string[];
}

export interface GuardStep {
  recordRead(conversationId: string, read: RecordedRead): Promise<void>;
  judge(conversationId: string, call: MutationCall): Promise<GuardJudgement>;
}

interface SessionState {
  session: Session;
  /** Most recent reads first out: the evidence window. */
  reads: { callId: string; resource: string | undefined; snapshot: string | undefined }[];
  /** Records still being written: a judgement waits for them, so a read answered before the call counts. */
  recording: Promise<unknown>;
}

const MAX_SESSIONS = 1000;
const MAX_TOOLS = 1000;
const ALLOWED = Symbol('allowed');

export function createGuardStep(options: { mode: GuardMode; evidenceWindow: number }): GuardStep {
  const tt: Tooltrail = createTooltrail({
    tracerProvider: new BasicTracerProvider({ sampler: new AlwaysOffSampler() }),
    onUnsafeEvidence: options.mode === 'review' ? 'review_requested' : 'refused',
    evidenceLedgerSize: options.evidenceWindow,
  });
  const sessions = new Map<string, SessionState>();
  const readTools = new Map<string, ReturnType<typeof tt.readTool<ToolResult, unknown, ToolResult>>>();
  const mutationTools = new Map<string, ReturnType<typeof tt.mutationTool<unknown, unknown, typeof ALLOWED>>>();

  const stateOf = (conversationId: string): SessionState => {
    let state = sessions.get(conversationId);
    if (state) return state;
    // Oldest session forgotten first: a proxy serving many clients keeps a bounded memory.
    if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.keys().next().value as string);
    state = {
      session: tt.session({ conversationId, agentName: 'mcp-proxy' }),
      reads: [],
      recording: Promise.resolve(),
    };
    sessions.set(conversationId, state);
    return state;
  };
  const cached = <T>(map: Map<string, T>, name: string, make: () => T): T => {
    let tool = map.get(name);
    if (!tool) {
      tool = make();
      if (map.size < MAX_TOOLS) map.set(name, tool);
    }
    return tool;
  };

  return {
    async recordRead(conversationId, read) {
      const state = stateOf(conversationId);
      // The result travels as the wrapper's arguments (never recorded): one wrapper per tool serves every call.
      const tool = cached(readTools, read.toolName, () =>
        tt.readTool<ToolResult, unknown, ToolResult>(read.toolName, (result) => result),
      );
      const recorded = tool(state.session, read.result, { toolCallId: read.callId });
      state.recording = Promise.allSettled([state.recording, recorded]);
      state.reads.push({ callId: read.callId, resource: read.resource, snapshot: read.result.scope?.snapshot });
      if (state.reads.length > options.evidenceWindow) state.reads.shift();
      await recorded;
    },
    async judge(conversationId, call) {
      const state = stateOf(conversationId);
      await state.recording;
      const evidence = state.reads.filter((r) => r.resource === call.resource);
      const plan: MutationPlan = {
        basis: call.basis,
        targets: call.targets,
        evidence: evidence.map((r) => ({ callId: r.callId })),
        ...(call.resource === undefined ? {} : { resource: call.resource }),
      };
      const tool = cached(mutationTools, call.toolName, () =>
        tt.mutationTool<unknown, unknown, typeof ALLOWED>(call.toolName, () => ALLOWED),
      );
      const enforced = options.mode !== 'observe';
      const outcome = await tool(state.session, {}, plan, {
        toolCallId: call.callId,
        guard: enforced ? 'enforce' : 'off',
      });
      const evidenceCallIds = evidence.map((r) => r.callId);
      const evidenceSnapshots = [...new Set(evidence.flatMap((r) => (r.snapshot ? [r.snapshot] : [])))];
      if (outcome.decision === 'not_checked') {
        return {
          decision: outcome.unenforced.decision,
          enforced,
          findings: outcome.unenforced.findings,
          review: undefined,
          evidenceCallIds,
          evidenceSnapshots,
        };
      }
      if (outcome.decision === 'allowed') {
        return { decision: 'allowed', enforced, findings: [], review: undefined, evidenceCallIds, evidenceSnapshots };
      }
      return {
        decision: outcome.decision,
        enforced,
        findings: outcome.findings,
        review: outcome.review,
        evidenceCallIds,
        evidenceSnapshots,
      };
    },
  };
}
