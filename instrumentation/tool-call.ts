/**
 * The one code path every instrumented tool call takes (plain wrappers and the MCP client alike): an
 * `execute_tool {name}` span with the GenAI and tooltrail attributes, the session's sequence number, the result's
 * contract, opt-in recording, the evidence ledger and, for mutations, the guard's decision before anything runs.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { context, diag, SpanKind, trace } from '@opentelemetry/api';
import type { Continuation, Effect, GuardDecision, Reason, ToolResult, Warning } from '../contract/index.ts';
import { Attr, EXECUTE_TOOL, GenAi, GuardUnenforcedEvent, SEMCONV_VERSION, toolSpanName } from '../contract/index.ts';
import type { GuardMode, TooltrailConfig } from './config.ts';
import type { CursorLocator, CursorSelector, PageParams } from './cursor.ts';
import { namedLocator, pageParamsLocator, selectorLocator } from './cursor.ts';
import type { GuardFinding, GuardVerdict, MutationPlan, ReviewRequest } from './guard.ts';
import { decideMutation } from './guard.ts';
import { planFromLedger } from './ledger-evidence.ts';
import type { MutationPolicy } from './policy.ts';
import { type FieldPolicies, hashesAny, type Redactor, UNKEYED_HASH_WARNING } from './redaction.ts';
import type { CompletenessState, InterpretedResult, NextStep, Recognition } from './results.ts';
import { completenessState, errorResult, nextStep } from './results.ts';
import type { EvidenceRecord, Session } from './session.ts';
import { MAX_REMEMBERED_IDS } from './session.ts';
import {
  recordErrorResult,
  recordThrown,
  recordTraversal,
  recordWarnings,
  resultAttributes,
} from './span-recording.ts';
import type { Placement, TraversalState } from './traversal.ts';
import { evidenceUnits } from './traversal.ts';

/** Per call: the id the model gave the call (`gen_ai.tool.call.id`); generated when absent. */
export interface CallOptions {
  toolCallId?: string;
}

/** Per mutation call, besides the call id. */
export interface MutationCallOptions extends CallOptions {
  /**
   * Overrides the configured `guard` for this call. `off` is the runtime's choice (an observe-only rollout, a
   * replayed incident), never something to derive from model output.
   */
  guard?: GuardMode;
}

/** What a tool implementation receives besides its arguments. */
export interface ToolCallContext {
  callId: string;
  sequence: number;
  session: Session;
  /** The tool span, e.g. to add the tool's own events. */
  span: Span;
}

export interface ReadOutcome<T = unknown, V = unknown> {
  callId: string;
  sequence: number;
  /** What the tool returned, untouched. */
  value: V;
  /** The validated contract (unknown completeness when the tool stated none). */
  result: ToolResult<T>;
  recognized: Recognition;
  complete: boolean;
  items: T[];
  state: CompletenessState;
  nextStep: NextStep;
  /** A page of a cursor traversal: the traversal's id, this page's position, whether the whole is complete. */
  traversal?: TraversalState;
}

/** The outcome of a read, derived from its contract: one shape whether the tool ran here or elsewhere. */
function readOutcome<T, V>(
  callId: string,
  sequence: number,
  value: V,
  result: ToolResult<T>,
  recognized: Recognition,
  traversal: TraversalState | undefined,
): ReadOutcome<T, V> {
  const outcome: ReadOutcome<T, V> = {
    callId,
    sequence,
    value,
    result,
    recognized,
    complete: result.completeness.complete,
    items: result.items ?? [],
    state: completenessState(result),
    // A last page that says complete, of a traversal that is not, is a partial read.
    nextStep:
      result.completeness.complete && traversal !== undefined && !traversal.complete
        ? 'treat_as_partial'
        : nextStep(result),
  };
  if (traversal !== undefined) outcome.traversal = traversal;
  return outcome;
}

export type MutationOutcome<T = unknown, V = unknown> =
  | ({ decision: 'allowed'; findings: [] } & ReadOutcome<T, V>)
  | ({
      /** The guard was off: the mutation ran unjudged, and its span carries no `tooltrail.guard.decision`. */
      decision: 'not_checked';
      findings: [];
      /** What the guard would have decided, and why (also the span's `tooltrail.guard.unenforced` event). */
      unenforced: { decision: GuardDecision; findings: GuardFinding[] };
    } & ReadOutcome<T, V>)
  | {
      decision: Exclude<GuardDecision, 'allowed'>;
      callId: string;
      sequence: number;
      findings: GuardFinding[];
      /** For `review_requested`: what to show the reviewer. For `refused`: what would have been needed. */
      review: ReviewRequest;
    };

/** A tool as the runner sees it, prepared once when the tool is defined. */
export interface ToolBinding<V, T, A = unknown> {
  toolName: string;
  spanName: string;
  toolType: string | undefined;
  /** `gen_ai.tool.description`, recorded when given. */
  toolDescription: string | undefined;
  /** Opted-in fields (global + tool), or undefined when none: the common case costs nothing. */
  recordArguments: FieldPolicies | undefined;
  recordResult: FieldPolicies | undefined;
  interpret: (value: V) => InterpretedResult<T>;
  itemId: ((item: T) => string | number | undefined) | undefined;
  /** Reads: the resource their results describe when a result declares no scope. */
  resource: string | undefined;
  /** Reads: where a cursor is in the arguments, so that a page is placed in its traversal. */
  cursor: CursorLocator;
  /** Mutations: how to judge a call that comes with arguments only. */
  policy: MutationPolicy<A> | undefined;
  /** Mutations: re-checks each target just before execution; a target it refuses stops the mutation. */
  verifyTarget: TargetVerifier<A> | undefined;
}

/** True if the target still qualifies for the mutation now; false (or a throw) refuses the call. */
export type TargetVerifier<A = unknown> = (
  target: string,
  ctx: { args: A; session: Session },
) => boolean | Promise<boolean>;

/** What the runner needs from its host besides the config. */
export interface RunnerHooks {
  /** Milliseconds since the epoch, for the age of evidence. */
  clock?: () => number;
  /** The alerts side's escalated warnings (code and source): an escalated warning blocks every mutation. */
  isWarningEscalated?: (warning: { code: Warning['code']; source: string }) => boolean;
}

export interface BindOptions<V, T, A = unknown> {
  toolName: string;
  toolType?: string | undefined;
  toolDescription?: string | undefined;
  recordArguments?: FieldPolicies | undefined;
  recordResult?: FieldPolicies | undefined;
  interpret: (value: V) => InterpretedResult<T>;
  itemId?: ((item: T) => string | number | undefined) | undefined;
  resource?: string | undefined;
  /** Reads: where the cursor is in the arguments (wins over `pageParams`). */
  cursor?: CursorSelector<A> | undefined;
  /** Reads: the adapter's request parameters for a cursor, telling where the cursor is when `cursor` does not. */
  pageParams?: PageParams | undefined;
  policy?: MutationPolicy<A> | undefined;
  verifyTarget?: TargetVerifier<A> | undefined;
}

/** The tool itself, called with its arguments (passed along rather than captured: no closure per call). */
type Execute<A, V> = (args: A, ctx: ToolCallContext) => Promise<V> | V;

export class ToolCallRunner {
  readonly #tracer: Tracer;
  readonly #config: TooltrailConfig;
  readonly #redactor: Redactor;
  readonly #clock: () => number;
  readonly #isEscalated: RunnerHooks['isWarningEscalated'];
  readonly #warningBlocks: (warning: Warning, basis: MutationPlan['basis']) => string | undefined;
  #warnedUnkeyedHash = false;

  constructor(tracer: Tracer, config: TooltrailConfig, redactor: Redactor, hooks: RunnerHooks = {}) {
    this.#tracer = tracer;
    this.#config = config;
    this.#redactor = redactor;
    this.#clock = hooks.clock ?? Date.now;
    this.#isEscalated = hooks.isWarningEscalated;
    this.#warningBlocks = (warning, basis) => this.#blocks(warning, basis);
  }

  #blocks(warning: Warning, basis: MutationPlan['basis']): string | undefined {
    if (this.#config.warningPolicy[warning.code]?.includes(basis)) {
      return `the warning policy makes ${warning.code} block ${basis}-based mutations`;
    }
    if (!this.#isEscalated) return undefined;
    try {
      return this.#isEscalated({ code: warning.code, source: warning.source })
        ? 'the warning was escalated'
        : undefined;
    } catch (err) {
      // A guard that cannot tell whether a warning was escalated does not assume it was not.
      diag.warn(`tooltrail: isWarningEscalated failed: ${String(err)}`);
      return `its escalation state could not be read (${String(err)})`;
    }
  }

  bind<V, T, A = unknown>(options: BindOptions<V, T, A>): ToolBinding<V, T, A> {
    const recordArguments = merged(this.#config.record.arguments, options.recordArguments);
    const recordResult = merged(this.#config.record.result, options.recordResult);
    // Tools are bound at start, so the warning comes then, once, rather than at the first hashed call.
    if (!this.#redactor.keyed && !this.#warnedUnkeyedHash && hashesAny(recordArguments, recordResult)) {
      this.#warnedUnkeyedHash = true;
      diag.warn(UNKEYED_HASH_WARNING);
    }
    return {
      toolName: options.toolName,
      spanName: toolSpanName(options.toolName),
      toolType: options.toolType,
      toolDescription: options.toolDescription,
      recordArguments,
      recordResult,
      interpret: options.interpret,
      itemId: options.itemId,
      resource: options.resource ?? options.policy?.resource,
      cursor:
        options.cursor !== undefined
          ? selectorLocator(options.cursor)
          : options.pageParams !== undefined
            ? pageParamsLocator(options.pageParams)
            : namedLocator,
      policy: options.policy,
      verifyTarget: options.verifyTarget,
    };
  }

  /**
   * The guard's verdict on a mutation call, without running it: from the explicit plan when there is one (it wins),
   * else from the tool's policy and the session's reads of its resource, else `NO_PLAN`.
   */
  judge<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    args: A,
    callId: string,
    explicit: MutationPlan | undefined,
    unqualified?: readonly { target: string; why: string }[],
  ): { verdict: GuardVerdict; plan: MutationPlan | undefined } {
    const ledger = session.evidence;
    const now = this.#clock();
    const maxAgeMs = tool.policy?.evidenceWindow?.maxAgeMs ?? this.#config.evidenceMaxAgeMs;
    const derived =
      explicit === undefined && tool.policy !== undefined
        ? planFromLedger(tool.policy, args, ledger, now, maxAgeMs)
        : undefined;
    const plan =
      derived?.plan ??
      (explicit && explicit.resource === undefined && tool.policy
        ? { ...explicit, resource: tool.policy.resource }
        : explicit);
    const verdict = decideMutation({
      action: tool.toolName,
      callId,
      plan,
      resolved: (plan?.evidence ?? []).map((ref) => ({
        ref,
        // A page stands for its traversal: the guard judges the traversal as one read.
        records: evidenceUnits(
          typeof ref === 'string' ? ledger.bySnapshot(ref) : optional(ledger.byCallId(ref.callId)),
        ),
      })),
      onUnsafeEvidence: this.#config.onUnsafeEvidence,
      now,
      maxAgeMs,
      origin: derived ? 'ledger' : 'plan',
      warningBlocks: this.#warningBlocks,
      ...(derived ? { planFindings: derived.findings } : {}),
      ...(unqualified ? { unqualified } : {}),
    });
    return { verdict, plan };
  }

  /**
   * A read whose tool ran elsewhere (a proxy saw its result): its completeness goes into the session's evidence, as
   * a wrapped read's would. No span: the caller records its own, or wraps the call with a read tool instead.
   */
  recordRead<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    value: V,
    callId: string,
    args?: A,
  ): ReadOutcome<T, V> {
    const { result, recognized } = tool.interpret(value);
    const sequence = session.lastSequence;
    const placement = session.traversals.place(tool.toolName, args, tool.cursor, callId);
    const traversal = this.#remember(tool, session, placement, callId, sequence, result);
    return readOutcome(callId, sequence, value, result, recognized, traversal);
  }

  read<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    args: A,
    call: CallOptions | undefined,
    execute: Execute<A, V>,
  ): Promise<ReadOutcome<T, V>> {
    const callId = call?.toolCallId ?? globalThis.crypto.randomUUID();
    const sequence = session.nextSequence();
    const attributes = this.#attributes(tool, session, 'read', callId, sequence, args);
    const placement = session.traversals.place(tool.toolName, args, tool.cursor, callId);
    // startActiveSpan, without its per-call closure: context.with passes the arguments through.
    const span = this.#tracer.startSpan(tool.spanName, { kind: SpanKind.INTERNAL, attributes });
    return context.with(
      trace.setSpan(context.active(), span),
      this.#execute,
      this,
      span,
      tool,
      session,
      callId,
      sequence,
      args,
      execute,
      placement,
    ) as Promise<ReadOutcome<T, V>>;
  }

  mutate<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    args: A,
    call: MutationCallOptions | undefined,
    explicit: MutationPlan | undefined,
    execute: Execute<A, V>,
  ): Promise<MutationOutcome<T, V>> {
    const callId = call?.toolCallId ?? globalThis.crypto.randomUUID();
    const sequence = session.nextSequence();
    const attributes = this.#attributes(tool, session, 'mutation', callId, sequence, args);
    const enforced = (call?.guard ?? this.#config.guard) === 'enforce';
    // Judged even when off: the verdict resolves the evidence's call ids and snapshots the span records.
    const judged = this.judge(tool, session, args, callId, explicit);
    if (enforced && judged.verdict.decision === 'allowed' && tool.verifyTarget && judged.plan) {
      return this.#verified(tool, session, args, explicit, execute, callId, sequence, attributes, judged.plan);
    }
    return this.#judged(tool, session, args, execute, callId, sequence, attributes, enforced, judged);
  }

  /** Re-checks each target just before execution (no snapshot binds the selection to the read), then judges again. */
  async #verified<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    args: A,
    explicit: MutationPlan | undefined,
    execute: Execute<A, V>,
    callId: string,
    sequence: number,
    attributes: Attributes,
    plan: MutationPlan,
  ): Promise<MutationOutcome<T, V>> {
    const verify = tool.verifyTarget;
    const checks = await Promise.all(
      plan.targets.map(async (target): Promise<{ target: string; why: string } | undefined> => {
        try {
          return verify && !(await verify(target, { args, session }))
            ? { target, why: 'verifyTarget said it no longer qualifies' }
            : undefined;
        } catch (err) {
          // A check that failed did not confirm the target.
          return { target, why: `verifyTarget threw: ${String(err)}` };
        }
      }),
    );
    const unqualified = checks.filter((c) => c !== undefined);
    const judged = this.judge(tool, session, args, callId, explicit, unqualified);
    return this.#judged(tool, session, args, execute, callId, sequence, attributes, true, judged);
  }

  #judged<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    args: A,
    execute: Execute<A, V>,
    callId: string,
    sequence: number,
    attributes: Attributes,
    enforced: boolean,
    { verdict, plan }: { verdict: GuardVerdict; plan: MutationPlan | undefined },
  ): Promise<MutationOutcome<T, V>> {
    if (enforced) session.countDecision(verdict.decision);
    if (plan) {
      attributes[Attr.MUTATION_BASIS] = plan.basis;
      attributes[Attr.MUTATION_TARGET_COUNT] = plan.targets.length;
      // What the mutation acts in, so detectors can relate it to reads of that resource even when it never ran;
      // a scope declared by the mutation's own result replaces it.
      if (plan.resource !== undefined) attributes[Attr.SCOPE_RESOURCE] = plan.resource;
    }
    attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS] = verdict.evidenceSnapshots;
    attributes[Attr.MUTATION_EVIDENCE_CALL_IDS] = verdict.evidenceCallIds;
    // Absent when no guard acted: detectors score "no guard" apart from (and above) "the guard allowed it".
    if (enforced) attributes[Attr.GUARD_DECISION] = verdict.decision;
    return this.#tracer.startActiveSpan(
      tool.spanName,
      { kind: SpanKind.INTERNAL, attributes },
      async (span): Promise<MutationOutcome<T, V>> => {
        if (!enforced) return this.#runUnenforced(span, tool, session, callId, sequence, args, execute, verdict);
        if (verdict.decision !== 'allowed') {
          // Not run, and not a span error: the guard did its job.
          span.end();
          if (!verdict.review) throw new Error('tooltrail: the guard refused without a review request');
          return { decision: verdict.decision, callId, sequence, findings: verdict.findings, review: verdict.review };
        }
        const outcome = await this.#execute(span, tool, session, callId, sequence, args, execute, undefined);
        return { ...outcome, decision: 'allowed', findings: [] };
      },
    );
  }

  async #runUnenforced<V, T, A>(
    span: Span,
    tool: ToolBinding<V, T, A>,
    session: Session,
    callId: string,
    sequence: number,
    args: A,
    execute: Execute<A, V>,
    verdict: GuardVerdict,
  ): Promise<MutationOutcome<T, V>> {
    const findings = [...new Set(verdict.findings.map((f) => f.code))];
    span.addEvent(GuardUnenforcedEvent.NAME, {
      [GuardUnenforcedEvent.DECISION]: verdict.decision,
      [GuardUnenforcedEvent.FINDINGS]: findings,
    });
    const outcome = await this.#execute(span, tool, session, callId, sequence, args, execute, undefined);
    return {
      ...outcome,
      decision: 'not_checked',
      findings: [],
      unenforced: { decision: verdict.decision, findings: verdict.findings },
    };
  }

  #attributes<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    effect: Effect,
    callId: string,
    sequence: number,
    args: unknown,
  ): Attributes {
    const attributes: Attributes = {
      [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
      [GenAi.TOOL_NAME]: tool.toolName,
      [GenAi.TOOL_CALL_ID]: callId,
      [GenAi.CONVERSATION_ID]: session.conversationId,
      [Attr.EFFECT]: effect,
      [Attr.SESSION_SEQUENCE]: sequence,
      [Attr.SEMCONV_VERSION]: SEMCONV_VERSION,
    };
    if (tool.toolType !== undefined) attributes[GenAi.TOOL_TYPE] = tool.toolType;
    if (tool.toolDescription !== undefined) attributes[GenAi.TOOL_DESCRIPTION] = tool.toolDescription;
    if (session.agentName !== undefined) attributes[GenAi.AGENT_NAME] = session.agentName;
    if (session.agentId !== undefined) attributes[GenAi.AGENT_ID] = session.agentId;
    if (tool.recordArguments) {
      const recorded = this.#project(args, tool.recordArguments);
      if (recorded !== undefined) attributes[GenAi.TOOL_CALL_ARGUMENTS] = recorded;
    }
    return attributes;
  }

  /** Runs the tool inside its span and ends the span, whatever happens. */
  async #execute<V, T, A>(
    span: Span,
    tool: ToolBinding<V, T, A>,
    session: Session,
    callId: string,
    sequence: number,
    args: A,
    execute: Execute<A, V>,
    /** Reads only (where the read sits in its traversal): a mutation's own result is no evidence for a later one. */
    placement: Placement | undefined,
  ): Promise<ReadOutcome<T, V>> {
    let value: V;
    try {
      value = await execute(args, { callId, sequence, session, span });
    } catch (err) {
      const { type, message } = recordThrown(span, err);
      const result = errorResult({ type, message });
      span.setAttributes(resultAttributes(result));
      if (placement !== undefined) {
        const traversal = this.#remember(tool, session, placement, callId, sequence, result);
        if (traversal !== undefined) recordTraversal(span, traversal);
      }
      span.end();
      throw err;
    }
    try {
      const { result, recognized, problem } = tool.interpret(value);
      if (recognized === 'invalid') {
        diag.warn(
          `tooltrail: ${tool.toolName} returned an invalid completeness contract (${problem}); recorded as unknown`,
        );
      }
      span.setAttributes(resultAttributes(result));
      if (!result.scope && tool.resource !== undefined) span.setAttribute(Attr.SCOPE_RESOURCE, tool.resource);
      if (result.warnings.length > 0) recordWarnings(span, result.warnings);
      if (result.status === 'error') recordErrorResult(span, result.error.type, result.error.message);
      if (tool.recordResult) {
        const recorded = this.#project(value, tool.recordResult);
        if (recorded !== undefined) span.setAttribute(GenAi.TOOL_CALL_RESULT, recorded);
      }
      const traversal =
        placement === undefined ? undefined : this.#remember(tool, session, placement, callId, sequence, result);
      if (traversal !== undefined) recordTraversal(span, traversal);
      return readOutcome(callId, sequence, value, result, recognized, traversal);
    } finally {
      span.end();
    }
  }

  /** A read into the session's evidence, placed in its traversal. */
  #remember<V, T, A>(
    tool: ToolBinding<V, T, A>,
    session: Session,
    placement: Placement,
    callId: string,
    sequence: number,
    result: ToolResult<T>,
  ): TraversalState | undefined {
    const record = this.#record(tool, callId, sequence, result);
    session.evidence.add(record);
    return session.traversals.settle(placement, record);
  }

  #record<V, T, A>(
    tool: ToolBinding<V, T, A>,
    callId: string,
    sequence: number,
    result: ToolResult<T>,
  ): EvidenceRecord {
    const record: EvidenceRecord = {
      callId,
      toolName: tool.toolName,
      sequence,
      at: this.#clock(),
      status: result.status,
      complete: result.completeness.complete,
      // Records live as long as the ledger keeps them: share the common empty values rather than retain copies.
      reasons: result.completeness.reasons.length === 0 ? NO_REASONS : result.completeness.reasons,
      continuation:
        result.completeness.continuation.kind === 'none' ? NO_CONTINUATION : result.completeness.continuation,
    };
    if (result.warnings.length > 0) record.warnings = result.warnings;
    if (result.scope) record.scope = result.scope;
    else if (tool.resource !== undefined) record.scope = { resource: tool.resource };
    if (result.items) {
      record.itemCount = result.items.length;
      const ids =
        result.items.length <= MAX_REMEMBERED_IDS ? itemIds(result.items, tool.itemId ?? defaultItemId) : undefined;
      if (ids) record.itemIds = ids;
    }
    return record;
  }

  #project(value: unknown, policies: FieldPolicies): string | undefined {
    try {
      return this.#redactor.project(value, policies);
    } catch (err) {
      // Recording is best effort; it must never fail the tool call.
      diag.warn(`tooltrail: could not record opted-in fields: ${String(err)}`);
      return undefined;
    }
  }
}

const NO_REASONS: readonly Reason[] = Object.freeze([]);
const NO_CONTINUATION: Continuation = Object.freeze({ kind: 'none' });

function merged(global: FieldPolicies, own: FieldPolicies | undefined): FieldPolicies | undefined {
  const all = own ? { ...global, ...own } : global;
  return Object.keys(all).length > 0 ? all : undefined;
}

function optional<X>(x: X | undefined): X[] {
  return x === undefined ? [] : [x];
}

function defaultItemId(item: unknown): string | number | undefined {
  if (typeof item === 'string' || typeof item === 'number') return item;
  if (typeof item === 'object' && item !== null) {
    const id = (item as { id?: unknown }).id;
    if (typeof id === 'string' || typeof id === 'number') return id;
  }
  return undefined;
}

/** Every item's id, or undefined if any item has none (then the guard cannot compare targets with results). */
function itemIds<T>(items: readonly T[], itemId: (item: T) => string | number | undefined): string[] | undefined {
  const ids: string[] = [];
  try {
    for (const item of items) {
      const id = itemId(item);
      if (id === undefined) return undefined;
      ids.push(String(id));
    }
  } catch (err) {
    diag.warn(`tooltrail: itemId callback failed: ${String(err)}`);
    return undefined;
  }
  return ids;
}
