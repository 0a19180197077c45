/** What one agent run did, call by call, and what it changed in the world: the data the terminal renderer tells. */
import type { Effect, GuardDecision, MutationBasis, ResultStatus } from '../../contract/index.ts';
import type {
  CompletenessState,
  Continuation,
  GuardFinding,
  NextStep,
  Reason,
  Recognition,
  ReviewRequest,
  Scope,
  Warning,
} from '../../instrumentation/index.ts';
import type { Role, WorldCensus } from '../world/index.ts';

export type Strategy = 'naive' | 'careful';

export interface ResultSummary {
  status: ResultStatus;
  /** The decision field; unknown completeness is `false`. */
  complete: boolean;
  state: CompletenessState;
  /** How the library understood the result: a contract, or nothing said (`unknown`). */
  recognized: Recognition;
  itemCount?: number;
  reasons: Reason[];
  warnings: Warning[];
  continuation: Continuation['kind'];
  nextStep: NextStep;
  scope?: Scope;
  /** Pages followed, for the all-pages reads. */
  pages?: number;
}

export interface EvidenceLink {
  callId: string;
  /** The read's sequence number in this session, when it is one of this run's calls. */
  sequence?: number;
  tool?: string;
}

export interface MutationDetail {
  basis: MutationBasis;
  targets: string[];
  evidence: EvidenceLink[];
  /** `not_checked`: the guard was off. */
  guard: GuardDecision | 'not_checked';
  findings: GuardFinding[];
  review?: ReviewRequest;
  /** Guard off: what the library's guard would have decided (it did not act). */
  unenforced?: { decision: GuardDecision; findings: GuardFinding[] };
  ran: boolean;
}

export interface ToolCallSummary {
  sequence: number;
  callId: string;
  tool: string;
  effect: Effect;
  /** Why the agent made the call. */
  intent: string;
  /** For reads, and for mutations that ran. */
  result?: ResultSummary;
  mutation?: MutationDetail;
  /** What the agent concluded afterwards. */
  conclusion?: string;
}

export interface MutationRef {
  sequence: number;
  tool: string;
  basis: MutationBasis;
  targets: string[];
}

export interface AgentRunSummary {
  sessionId: string;
  agentName: string;
  strategy: Strategy;
  guard: 'on' | 'off';
  /** What the library's guard does with unsafe evidence (it acts only when `guard` is on). */
  onUnsafeEvidence: 'refused' | 'review_requested';
  role: Role;
  seed: number;
  task: string;
  calls: ToolCallSummary[];
  mutations: { ran: MutationRef[]; refused: MutationRef[]; reviewRequested: MutationRef[] };
  /** Ground truth the agent never saw, before and after the run. */
  world: { before: WorldCensus; after: WorldCensus };
  /** What the run really changed, one line each, judged against the ground truth. */
  outcome: string[];
}
