/**
 * The one code path every instrumented tool call takes (plain wrappers and the MCP client alike): an
 * `execute_tool {name}` span with the GenAI and tooltrail attributes, the session's sequence number, the result's
 * contract, opt-in recording, the evidence ledger and, for mutations, the guard's decision before anything runs.
 */
import type { Attributes, Span, Tracer } from '@opentelemetry/api';
import { diag, SpanKind } from '@opentelemetry/api';
import { Attr, EXECUTE_TOOL, GenAi, SEMCONV_VERSION, toolSpanName } from '../contract/attributes.ts';
import type { Effect, GuardDecision } from '../contract/codes.ts';
import type { ToolResult } from '../contract/envelope.ts';
import type { TooltrailConfig } from './config.ts';
import type { GuardFinding, MutationPlan, ReviewRequest } from './guard.ts';
import { decideMutation } from './guard.ts';
import type { FieldPolicies, Redactor } from './redaction.ts';
import type { CompletenessState, InterpretedResult, NextStep, Recognition } from './results.ts';
import { completenessState, errorResult, nextStep } from './results.ts';
import type { EvidenceRecord, Session } from './session.ts';
import { recordErrorResult, recordThrown, recordWarnings, resultAttributes } from './span-recording.ts';

/** Per call: the id the model gave the call (`gen_ai.tool.call.id`); generated when absent. */
export interface CallOptions {
  toolCallId?: string;
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
}

export type MutationOutcome<T = unknown, V = unknown> =
  | ({ decision: 'allowed'; findings: [] } & ReadOutcome<T, V>)
  | {
      decision: Exclude<GuardDecision, 'allowed'>;
      callId: string;
      sequence: number;
      findings: GuardFinding[];
      /** For `review_requested`: what to show the reviewer. For `refused`: what would have been needed. */
      review: ReviewRequest;
    };

export interface CallSpec<V, T> {
  session: Session;
  toolName: string;
  toolType: string | undefined;
  effect: Effect;
  call: CallOptions | undefined;
  args: unknown;
  recordArguments: FieldPolicies;
  recordResult: FieldPolicies;
  execute: (ctx: ToolCallContext) => Promise<V> | V;
  interpret: (value: V) => InterpretedResult<T>;
  itemId: ((item: T) => string | number | undefined) | undefined;
}

export class ToolCallRunner {
  readonly #tracer: Tracer;
  readonly #config: TooltrailConfig;
  readonly #redactor: Redactor;

  constructor(tracer: Tracer, config: TooltrailConfig, redactor: Redactor) {
    this.#tracer = tracer;
    this.#config = config;
    this.#redactor = redactor;
  }

  read<V, T>(spec: CallSpec<V, T>): Promise<ReadOutcome<T, V>> {
    const { callId, sequence, attributes } = this.#start(spec);
    return this.#tracer.startActiveSpan(
      toolSpanName(spec.toolName),
      { kind: SpanKind.INTERNAL, attributes },
      async (span) => {
        try {
          return await this.#execute(span, spec, callId, sequence);
        } finally {
          span.end();
        }
      },
    );
  }

  mutate<V, T>(spec: CallSpec<V, T>, plan: MutationPlan | undefined): Promise<MutationOutcome<T, V>> {
    const { callId, sequence, attributes } = this.#start(spec);
    const ledger = spec.session.evidence;
    const verdict = decideMutation({
      action: spec.toolName,
      callId,
      plan,
      resolved: (plan?.evidence ?? []).map((ref) => ({
        ref,
        records: typeof ref === 'string' ? ledger.bySnapshot(ref) : optional(ledger.byCallId(ref.callId)),
      })),
      onUnsafeEvidence: this.#config.onUnsafeEvidence,
    });
    spec.session.countDecision(verdict.decision);
    if (plan) {
      attributes[Attr.MUTATION_BASIS] = plan.basis;
      attributes[Attr.MUTATION_TARGET_COUNT] = plan.targets.length;
    }
    attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS] = verdict.evidenceSnapshots;
    attributes[Attr.MUTATION_EVIDENCE_CALL_IDS] = verdict.evidenceCallIds;
    attributes[Attr.GUARD_DECISION] = verdict.decision;
    return this.#tracer.startActiveSpan(
      toolSpanName(spec.toolName),
      { kind: SpanKind.INTERNAL, attributes },
      async (span): Promise<MutationOutcome<T, V>> => {
        try {
          if (verdict.decision !== 'allowed' && verdict.review) {
            // Not run, and not a span error: the guard did its job.
            return { decision: verdict.decision, callId, sequence, findings: verdict.findings, review: verdict.review };
          }
          const outcome = await this.#execute(span, spec, callId, sequence);
          return { ...outcome, decision: 'allowed', findings: [] };
        } finally {
          span.end();
        }
      },
    );
  }

  #start<V, T>(spec: CallSpec<V, T>): { callId: string; sequence: number; attributes: Attributes } {
    const callId = spec.call?.toolCallId ?? globalThis.crypto.randomUUID();
    const sequence = spec.session.nextSequence();
    const { session } = spec;
    const attributes: Attributes = {
      [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
      [GenAi.TOOL_NAME]: spec.toolName,
      [GenAi.TOOL_CALL_ID]: callId,
      [GenAi.CONVERSATION_ID]: session.conversationId,
      [Attr.EFFECT]: spec.effect,
      [Attr.SESSION_SEQUENCE]: sequence,
      [Attr.SEMCONV_VERSION]: SEMCONV_VERSION,
    };
    if (spec.toolType !== undefined) attributes[GenAi.TOOL_TYPE] = spec.toolType;
    if (session.agentName !== undefined) attributes[GenAi.AGENT_NAME] = session.agentName;
    if (session.agentId !== undefined) attributes[GenAi.AGENT_ID] = session.agentId;
    const args = this.#project(spec.args, { ...this.#config.record.arguments, ...spec.recordArguments });
    if (args !== undefined) attributes[GenAi.TOOL_CALL_ARGUMENTS] = args;
    return { callId, sequence, attributes };
  }

  async #execute<V, T>(span: Span, spec: CallSpec<V, T>, callId: string, sequence: number) {
    let value: V;
    try {
      value = await spec.execute({ callId, sequence, session: spec.session, span });
    } catch (err) {
      const { type, message } = recordThrown(span, err);
      const result = errorResult({ type, message });
      span.setAttributes(resultAttributes(result));
      spec.session.evidence.add(this.#record(spec, callId, sequence, result));
      throw err;
    }
    const { result, recognized, problem } = spec.interpret(value);
    if (recognized === 'invalid') {
      diag.warn(
        `tooltrail: ${spec.toolName} returned an invalid completeness contract (${problem}); recorded as unknown`,
      );
    }
    span.setAttributes(resultAttributes(result));
    recordWarnings(span, result.warnings);
    if (result.status === 'error') recordErrorResult(span, result.error.type, result.error.message);
    const recorded = this.#project(value, { ...this.#config.record.result, ...spec.recordResult });
    if (recorded !== undefined) span.setAttribute(GenAi.TOOL_CALL_RESULT, recorded);
    spec.session.evidence.add(this.#record(spec, callId, sequence, result));
    const outcome: ReadOutcome<T, V> = {
      callId,
      sequence,
      value,
      result,
      recognized,
      complete: result.completeness.complete,
      items: result.items ?? [],
      state: completenessState(result),
      nextStep: nextStep(result),
    };
    return outcome;
  }

  #record<V, T>(spec: CallSpec<V, T>, callId: string, sequence: number, result: ToolResult<T>): EvidenceRecord {
    const record: EvidenceRecord = {
      callId,
      toolName: spec.toolName,
      sequence,
      status: result.status,
      complete: result.completeness.complete,
      reasons: result.completeness.reasons,
      continuation: result.completeness.continuation,
    };
    if (result.scope) record.scope = result.scope;
    if (result.items) {
      record.itemCount = result.items.length;
      const ids = itemIds(result.items, spec.itemId ?? defaultItemId);
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
