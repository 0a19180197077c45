/**
 * The proxy's spans, per the MCP semantic conventions (`{mcp.method.name} {target}`, `mcp.*`, `jsonrpc.request.id`)
 * plus, on `tools/call`, the GenAI tool attributes and the tooltrail contract the pipeline stores.
 */
import {
  type Attributes,
  context,
  defaultTextMapGetter,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import type { ToolResult } from '../contract/index.ts';
import {
  Attr,
  EXECUTE_TOOL,
  GenAi,
  GuardUnenforcedEvent,
  MCP_TOOL_ERROR,
  McpAttr,
  OtelAttr,
  SEMCONV_VERSION,
  WarningEvent,
} from '../contract/index.ts';
import type { TraversalState } from '../instrumentation/index.ts';
import type { GuardJudgement } from './guard-step.ts';

const propagator = new W3CTraceContextPropagator();

export interface SpanStart {
  method: string;
  /** Tool, prompt or resource the request is about (the span name's second word). */
  target: string | undefined;
  requestId: string | number;
  /** `_meta` of the request: a W3C `traceparent` there makes the proxy's span its child. */
  meta: Record<string, unknown> | undefined;
  base: Attributes;
}

export function startRequestSpan(tracer: Tracer, s: SpanStart): Span {
  const name = s.target === undefined ? s.method : `${s.method} ${s.target}`;
  const parent =
    s.meta && typeof s.meta.traceparent === 'string'
      ? propagator.extract(ROOT_CONTEXT, s.meta, defaultTextMapGetter)
      : context.active();
  const attributes: Attributes = {
    ...s.base,
    [McpAttr.METHOD_NAME]: s.method,
    [McpAttr.JSONRPC_REQUEST_ID]: String(s.requestId),
  };
  if (s.method === 'resources/read' && s.target !== undefined) attributes[McpAttr.RESOURCE_URI] = s.target;
  if (s.method === 'prompts/get' && s.target !== undefined) attributes[McpAttr.PROMPT_NAME] = s.target;
  return tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parent);
}

export interface ToolCallStart {
  toolName: string;
  callId: string;
  conversationId: string;
  sequence: number;
  effect: 'read' | 'mutation';
}

export function toolCallAttributes(t: ToolCallStart): Attributes {
  return {
    [GenAi.OPERATION_NAME]: EXECUTE_TOOL,
    [GenAi.TOOL_NAME]: t.toolName,
    [GenAi.TOOL_CALL_ID]: t.callId,
    [GenAi.CONVERSATION_ID]: t.conversationId,
    [GenAi.AGENT_NAME]: 'mcp-proxy',
    [Attr.EFFECT]: t.effect,
    [Attr.SESSION_SEQUENCE]: t.sequence,
    [Attr.SEMCONV_VERSION]: SEMCONV_VERSION,
  };
}

export function recordResult(span: Span, result: ToolResult): void {
  const c = result.completeness;
  const attributes: Attributes = {
    [Attr.RESULT_STATUS]: result.status,
    [Attr.RESULT_COMPLETE]: c.complete,
    [Attr.RESULT_REASONS]: c.reasons.map((r) => r.code),
    [Attr.RESULT_CONTINUATION]: c.continuation.kind,
  };
  if (result.items !== undefined) attributes[Attr.RESULT_ITEM_COUNT] = result.items.length;
  if (result.scope?.resource) attributes[Attr.SCOPE_RESOURCE] = result.scope.resource;
  if (result.scope?.visibility) attributes[Attr.SCOPE_VISIBILITY] = result.scope.visibility;
  if (result.scope?.snapshot) attributes[Attr.SCOPE_SNAPSHOT] = result.scope.snapshot;
  if (result.warnings.length > 0) {
    attributes[Attr.WARNINGS] = result.warnings.map((w) => w.code);
    for (const w of result.warnings) {
      span.addEvent(WarningEvent.NAME, {
        [WarningEvent.CODE]: w.code,
        [WarningEvent.MESSAGE]: w.message,
        [WarningEvent.SOURCE]: w.source,
      });
    }
  }
  span.setAttributes(attributes);
}

/** A page of a cursor traversal: its traversal (the first page's call id), its position, a break seen here. */
export function recordTraversal(span: Span, t: TraversalState): void {
  span.setAttribute(Attr.TRAVERSAL_ID, t.id);
  if (t.page !== undefined) span.setAttribute(Attr.TRAVERSAL_PAGE, t.page);
  if (t.break !== undefined) span.setAttribute(Attr.TRAVERSAL_BREAK, t.break);
}

/** A tool result with `isError: true`: the output is not copied into the span. */
export function recordToolError(span: Span): void {
  span.setAttribute(OtelAttr.ERROR_TYPE, MCP_TOOL_ERROR);
  span.setStatus({ code: SpanStatusCode.ERROR, message: 'the MCP tool returned isError' });
}

export function recordJsonRpcError(span: Span, error: { code?: unknown; message?: unknown }): void {
  const code = typeof error.code === 'number' ? String(error.code) : 'jsonrpc_error';
  span.setAttribute(OtelAttr.ERROR_TYPE, code);
  span.setAttribute(McpAttr.RPC_RESPONSE_STATUS_CODE, code);
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof error.message === 'string' ? error.message : code });
}

export function recordMutationPlan(
  span: Span,
  basis: string,
  judgement: GuardJudgement,
  resource: string | undefined,
): void {
  span.setAttributes({
    [Attr.MUTATION_BASIS]: basis,
    [Attr.MUTATION_TARGET_COUNT]: judgement.targetCount,
    [Attr.MUTATION_EVIDENCE_CALL_IDS]: judgement.evidenceCallIds,
    [Attr.MUTATION_EVIDENCE_SNAPSHOTS]: judgement.evidenceSnapshots,
    ...(resource === undefined ? {} : { [Attr.SCOPE_RESOURCE]: resource }),
  });
  if (judgement.enforced) {
    span.setAttribute(Attr.GUARD_DECISION, judgement.decision);
  } else {
    // observe: no guard acted, so no decision attribute; what it would have decided is an event.
    span.addEvent(GuardUnenforcedEvent.NAME, {
      [GuardUnenforcedEvent.DECISION]: judgement.decision,
      [GuardUnenforcedEvent.FINDINGS]: [...new Set(judgement.findings.map((f) => f.code))],
    });
  }
}
