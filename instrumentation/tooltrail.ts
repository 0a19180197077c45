/** The entry object: sessions, and wrappers that turn tool functions into instrumented, guarded tools. */
import type { TracerProvider } from '@opentelemetry/api';
import { trace } from '@opentelemetry/api';
import type { Effect, WarningCode } from '../contract/index.ts';
import { MUTATION_BASES } from '../contract/index.ts';
import type { CompletenessAdapter } from './adapters/adapter.ts';
import type { AgentInvocation } from './agent-span.ts';
import { runAgent } from './agent-span.ts';
import type { TooltrailConfig, TooltrailConfigInput } from './config.ts';
import { FieldPoliciesSchema, parseConfig } from './config.ts';
import type { CursorSelector } from './cursor.ts';
import type { GuardVerdict, MutationPlan } from './guard.ts';
import type { MutationPolicy, ReadPolicy } from './policy.ts';
import type { FieldPolicies } from './redaction.ts';
import { createRedactor } from './redaction.ts';
import type { InterpretedResult } from './results.ts';
import { interpretToolResult } from './results.ts';
import type { SessionInfo } from './session.ts';
import { Session } from './session.ts';
import type {
  CallOptions,
  MutationCallOptions,
  MutationOutcome,
  ReadOutcome,
  TargetVerifier,
  ToolCallContext,
} from './tool-call.ts';
import { ToolCallRunner } from './tool-call.ts';
import { INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION } from './version.ts';

export interface TooltrailOptions extends TooltrailConfigInput {
  /** Where spans go; defaults to the globally registered provider. The application chooses the SDK. */
  tracerProvider?: TracerProvider;
  /** Milliseconds since the epoch, for the age of evidence. Default: `Date.now`. */
  clock?: () => number;
  /**
   * Whether the alerts side escalated this warning (code and source): an escalated warning on the evidence blocks
   * every mutation. Called when a mutation is judged, so keep it a lookup (the assembly refreshes what it reads).
   */
  isWarningEscalated?: (warning: { code: WarningCode; source: string }) => boolean;
  /** Where TOOLTRAIL_HASH_KEY is read when `hashKey` is not given. Default: `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

export interface ToolDefinition<T = unknown> {
  /** `gen_ai.tool.name`. */
  name: string;
  /** `gen_ai.tool.type` (`function`, `extension`, `datastore`), recorded when given. */
  type?: string;
  /** `gen_ai.tool.description`, recorded when given. */
  description?: string;
  /** Opt-in recording of this tool's argument and result fields (added to the global lists). */
  record?: { arguments?: FieldPolicies; result?: FieldPolicies };
  /** Id of a returned item, so the guard can compare mutation targets with what reads returned. Default: `item.id`. */
  itemId?: (item: T) => string | number | undefined;
}

export interface ReadDefinition<T = unknown, A = unknown> extends ToolDefinition<T> {
  /**
   * A read tool's resource (its results describe it, so mutations of that resource find them as evidence) and
   * where its cursor is in the arguments.
   */
  policy?: ReadPolicy<A>;
  /**
   * Reads the API's raw response into the contract (`githubSearch`, `kubernetesList`...); its `pageParams` also
   * tell where the cursor is in the arguments when the policy does not.
   */
  adapter?: ReadAdapter;
}

/** What a read tool uses of an adapter. */
export type ReadAdapter = Pick<CompletenessAdapter, 'read'> & Partial<Pick<CompletenessAdapter, 'pageParams'>>;

export interface MutationDefinition<A = unknown, T = unknown> extends ToolDefinition<T> {
  /** How to judge a call made with arguments only: resource, basis, targets from the arguments, evidence window. */
  policy?: MutationPolicy<A>;
  /**
   * Re-checks each target just before execution (e.g. "still unowned?"), for selections no snapshot binds to the
   * read; a target it refuses (false or a throw) stops the mutation with `TARGET_NO_LONGER_QUALIFIES`.
   */
  verifyTarget?: TargetVerifier<A>;
}

/** A read whose tool ran outside a wrapper (a proxy saw its result), for `recordRead`. */
export interface ExternalRead<V = unknown, T = unknown> {
  toolName: string;
  /** What the tool returned; interpreted as a wrapped read's result would be. */
  value: V;
  /** `gen_ai.tool.call.id` of the call; generated when absent. */
  callId?: string;
  /** The resource the result describes when it declares no scope (the read tool's policy). */
  resource?: string;
  /** The call's arguments: a cursor in them places the read in its traversal. */
  args?: unknown;
  /** Where the cursor is in the arguments (see `ReadPolicy.cursor`). */
  cursor?: CursorSelector;
  itemId?: (item: T) => string | number | undefined;
  /** Default: `interpretToolResult`; e.g. `interpretMcpResult` for an MCP `CallToolResult`. */
  interpret?: (value: V) => InterpretedResult<T>;
}

/** A mutation call to judge without running it, for `judgeMutation`. */
export interface MutationCall<A = unknown> {
  toolName: string;
  args: A;
  policy?: MutationPolicy<A>;
  /** An explicit plan wins over the policy. */
  plan?: MutationPlan;
  callId?: string;
}

export interface MutationJudgement extends GuardVerdict {
  callId: string;
  /** The plan judged: the explicit one, or the one derived from the policy and the ledger. */
  plan: MutationPlan | undefined;
}

export type ReadTool<A, T, V> = (session: Session, args: A, call?: CallOptions) => Promise<ReadOutcome<T, V>>;
/** Called with arguments only, a tool with a policy is judged on the session's reads; an explicit plan wins. */
export type MutationTool<A, T, V> = (
  session: Session,
  args: A,
  plan?: MutationPlan,
  call?: MutationCallOptions,
) => Promise<MutationOutcome<T, V>>;

export interface Tooltrail {
  readonly config: TooltrailConfig;
  /** Internal runner shared with the MCP wrapper. */
  readonly runner: ToolCallRunner;
  session(info: SessionInfo): Session;
  /** A read tool: its result's completeness goes on the span and into the session's evidence. */
  readTool<A, T = unknown, V = unknown>(
    definition: string | ReadDefinition<T, A>,
    fn: (args: A, ctx: ToolCallContext) => Promise<V> | V,
  ): ReadTool<A, T, V>;
  /**
   * A mutation tool: runs only if the guard allows the plan; the decision goes on the span either way. With the
   * guard `off` (config or per call) it runs unjudged and its span carries the plan but no decision.
   */
  mutationTool<A, T = unknown, V = unknown>(
    definition: string | MutationDefinition<A, T>,
    fn: (args: A, ctx: ToolCallContext) => Promise<V> | V,
  ): MutationTool<A, T, V>;
  /**
   * Records a read that ran elsewhere into the session's evidence (no span). For a proxy or a framework that runs
   * tools itself; wrapping the call with `readTool` gives the span too.
   */
  recordRead<V, T = unknown>(session: Session, read: ExternalRead<V, T>): ReadOutcome<T, V>;
  /**
   * The guard's verdict on a mutation call, without running it (no span). Counted in `session.decisions()`. For a
   * proxy that forwards the call only when `decision` is `allowed`.
   */
  judgeMutation<A>(session: Session, call: MutationCall<A>): MutationJudgement;
  /**
   * Runs one invocation of the session's agent inside an `invoke_agent {agent name}` span (GenAI conventions): the
   * tool calls it makes are its children. A thrown error is recorded on the span and rethrown.
   */
  invokeAgent<R>(session: Session, fn: () => Promise<R> | R, invocation?: AgentInvocation): Promise<R>;
}

export function createTooltrail(options: TooltrailOptions = {}): Tooltrail {
  const { tracerProvider, clock, isWarningEscalated, env = process.env, ...configInput } = options;
  const config = parseConfig(configInput, env);
  const tracer = (tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME, INSTRUMENTATION_VERSION);
  const redactor = createRedactor({
    maxChars: config.maxRecordedChars,
    ...(config.hashKey !== undefined ? { hashKey: config.hashKey } : {}),
  });
  const runner = new ToolCallRunner(tracer, config, redactor, {
    ...(clock ? { clock } : {}),
    ...(isWarningEscalated ? { isWarningEscalated } : {}),
  });

  const bind = <T, V, A>(definition: string | ReadDefinition<T, A> | MutationDefinition<A, T>, effect: Effect) => {
    const def = toDefinition(definition);
    const policy = def.policy;
    validatePolicy(def.name, policy, effect);
    const adapter = 'adapter' in def ? def.adapter : undefined;
    const cursor = effect === 'read' ? (policy as ReadPolicy<A> | undefined)?.cursor : undefined;
    return runner.bind<V, T, A>({
      toolName: def.name,
      toolType: def.type,
      toolDescription: def.description,
      recordArguments: def.record?.arguments,
      recordResult: def.record?.result,
      interpret: adapter
        ? (value: V) => interpretToolResult<T>(adapter.read(value))
        : (value: V) => interpretToolResult<T>(value),
      itemId: def.itemId,
      resource: policy?.resource,
      ...(cursor !== undefined ? { cursor } : {}),
      ...(adapter?.pageParams ? { pageParams: adapter.pageParams } : {}),
      ...(effect === 'mutation' && policy ? { policy: policy as MutationPolicy<A> } : {}),
      ...('verifyTarget' in def && def.verifyTarget ? { verifyTarget: def.verifyTarget } : {}),
    });
  };

  return {
    config,
    runner,
    session: (info) => new Session(info, config.evidenceLedgerSize),
    readTool<A, T, V>(
      definition: string | ReadDefinition<T, A>,
      fn: (args: A, ctx: ToolCallContext) => Promise<V> | V,
    ) {
      const tool = bind<T, V, A>(definition, 'read');
      return (session: Session, args: A, call?: CallOptions) => runner.read(tool, session, args, call, fn);
    },
    mutationTool<A, T, V>(
      definition: string | MutationDefinition<A, T>,
      fn: (args: A, ctx: ToolCallContext) => Promise<V> | V,
    ): MutationTool<A, T, V> {
      const tool = bind<T, V, A>(definition, 'mutation');
      return (session, args, plan, call) => runner.mutate(tool, session, args, call, plan, fn);
    },
    recordRead<V, T>(session: Session, read: ExternalRead<V, T>): ReadOutcome<T, V> {
      const tool = runner.bind<V, T>({
        toolName: read.toolName,
        interpret: read.interpret ?? ((value: V) => interpretToolResult<T>(value)),
        itemId: read.itemId,
        resource: read.resource,
        cursor: read.cursor,
      });
      return runner.recordRead(tool, session, read.value, read.callId ?? globalThis.crypto.randomUUID(), read.args);
    },
    invokeAgent: (session, fn, invocation = {}) => runAgent(tracer, session, invocation, fn),
    judgeMutation<A>(session: Session, call: MutationCall<A>): MutationJudgement {
      validatePolicy(call.toolName, call.policy, 'mutation');
      const tool = runner.bind<unknown, unknown, A>({
        toolName: call.toolName,
        interpret: interpretToolResult,
        policy: call.policy,
      });
      const callId = call.callId ?? globalThis.crypto.randomUUID();
      const { verdict, plan } = runner.judge(tool, session, call.args, callId, call.plan);
      session.countDecision(verdict.decision);
      return { ...verdict, callId, plan };
    },
  };
}

/** A policy fails when the tool is defined, naming the tool and the key; a function selector is checked by type. */
function validatePolicy(
  toolName: string,
  policy: ReadPolicy<never> | MutationPolicy<never> | undefined,
  effect: Effect,
): void {
  if (policy === undefined) return;
  const problems: string[] = [];
  if (typeof policy.resource !== 'string' || policy.resource.length === 0) {
    problems.push('policy.resource must be a non-empty string');
  }
  if (effect === 'read') {
    const c = (policy as ReadPolicy<never>).cursor;
    if (c !== undefined && typeof c !== 'function' && (typeof c !== 'string' || (c !== '' && !c.startsWith('/')))) {
      problems.push('policy.cursor must be a JSON pointer ("/cursor") or a function of the arguments');
    }
  }
  if (effect === 'mutation') {
    const p = policy as MutationPolicy<never>;
    if (!(MUTATION_BASES as readonly string[]).includes(p.basis)) {
      problems.push(`policy.basis must be one of ${MUTATION_BASES.join(', ')}`);
    }
    if (p.targets !== undefined && typeof p.targets !== 'function') {
      if (typeof p.targets !== 'string' || (p.targets !== '' && !p.targets.startsWith('/'))) {
        problems.push('policy.targets must be a JSON pointer ("/ids") or a function of the arguments');
      }
    }
    const age = p.evidenceWindow?.maxAgeMs;
    if (p.evidenceWindow !== undefined && !(typeof age === 'number' && Number.isInteger(age) && age > 0)) {
      problems.push('policy.evidenceWindow.maxAgeMs must be a positive integer');
    }
  }
  if (problems.length > 0) throw new Error(`tooltrail: tool ${toolName}: ${problems.join('; ')}`);
}

function toDefinition<T, A>(
  definition: string | ReadDefinition<T, A> | MutationDefinition<A, T>,
): ReadDefinition<T, A> | MutationDefinition<A, T> {
  const def = typeof definition === 'string' ? { name: definition } : definition;
  if (typeof def.name !== 'string' || def.name.length === 0) throw new Error('tooltrail: a tool needs a name');
  for (const part of ['arguments', 'result'] as const) {
    const parsed = FieldPoliciesSchema.safeParse(def.record?.[part] ?? {});
    if (!parsed.success) {
      throw new Error(
        `tooltrail: tool ${def.name}: record.${part}: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
      );
    }
  }
  return def;
}
