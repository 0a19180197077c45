import {
  CONTINUATION_KINDS,
  EFFECTS,
  GUARD_DECISIONS,
  MUTATION_BASES,
  RESULT_STATUSES,
  TRAVERSAL_BREAKS,
} from './codes.ts';

/**
 * Span attribute and event names: the data contract of the whole pipeline.
 * Every stage imports these constants; no attribute literal appears anywhere else.
 * Documented in docs/semantic-conventions.md; bump SEMCONV_VERSION on any change.
 */
export const SEMCONV_VERSION = '1.6.0' as const;

/**
 * OpenTelemetry GenAI semantic conventions (open-telemetry/semantic-conventions-genai, development status) used on
 * `execute_tool` spans and on the `invoke_agent` spans the library opens.
 */
export const GenAi = {
  OPERATION_NAME: 'gen_ai.operation.name',
  TOOL_NAME: 'gen_ai.tool.name',
  TOOL_CALL_ID: 'gen_ai.tool.call.id',
  TOOL_TYPE: 'gen_ai.tool.type',
  TOOL_DESCRIPTION: 'gen_ai.tool.description',
  TOOL_CALL_ARGUMENTS: 'gen_ai.tool.call.arguments',
  TOOL_CALL_RESULT: 'gen_ai.tool.call.result',
  CONVERSATION_ID: 'gen_ai.conversation.id',
  AGENT_NAME: 'gen_ai.agent.name',
  AGENT_ID: 'gen_ai.agent.id',
  AGENT_DESCRIPTION: 'gen_ai.agent.description',
  AGENT_VERSION: 'gen_ai.agent.version',
  /** Required on `invoke_agent` spans by the conventions; only the application knows it, so set when given. */
  PROVIDER_NAME: 'gen_ai.provider.name',
} as const;

/** General OpenTelemetry attributes (stable semantic conventions) that tool spans also carry. */
export const OtelAttr = {
  /** Low-cardinality class of the error that ended the call; set only when the call failed. */
  ERROR_TYPE: 'error.type',
} as const;

/**
 * OpenTelemetry MCP semantic conventions (semantic-conventions-genai, development status) on the MCP proxy's spans.
 * Span name: `{mcp.method.name} {target}` (the tool, prompt or resource), e.g. `tools/call delete_entities`.
 */
export const McpAttr = {
  METHOD_NAME: 'mcp.method.name',
  /** The Streamable HTTP session (`Mcp-Session-Id`), when there is one. */
  SESSION_ID: 'mcp.session.id',
  PROTOCOL_VERSION: 'mcp.protocol.version',
  RESOURCE_URI: 'mcp.resource.uri',
  PROMPT_NAME: 'gen_ai.prompt.name',
  JSONRPC_REQUEST_ID: 'jsonrpc.request.id',
  JSONRPC_PROTOCOL_VERSION: 'jsonrpc.protocol.version',
  /** The JSON-RPC error code of a failed request, as a string. */
  RPC_RESPONSE_STATUS_CODE: 'rpc.response.status_code',
  /** `pipe` (stdio) or `tcp` (Streamable HTTP). */
  NETWORK_TRANSPORT: 'network.transport',
} as const;

/** `error.type` of a tool call whose result said `isError: true` (MCP semantic conventions). */
export const MCP_TOOL_ERROR = 'tool_error' as const;

/** The value of `gen_ai.operation.name` on tool spans. */
export const EXECUTE_TOOL = 'execute_tool' as const;

/** The value of `gen_ai.operation.name` on agent invocation spans. */
export const INVOKE_AGENT = 'invoke_agent' as const;

/** Span name of an agent invocation: `invoke_agent {agent name}`, or `invoke_agent` when it has none. */
export function agentSpanName(agentName: string | undefined): string {
  return agentName ? `${INVOKE_AGENT} ${agentName}` : INVOKE_AGENT;
}

/** Span name of a tool call: `execute_tool {tool name}`. */
export function toolSpanName(toolName: string): string {
  return `${EXECUTE_TOOL} ${toolName}`;
}

/** tooltrail's own attributes. */
export const Attr = {
  EFFECT: 'tooltrail.effect',
  RESULT_STATUS: 'tooltrail.result.status',
  RESULT_COMPLETE: 'tooltrail.result.complete',
  RESULT_REASONS: 'tooltrail.result.reasons',
  RESULT_ITEM_COUNT: 'tooltrail.result.item_count',
  RESULT_CONTINUATION: 'tooltrail.result.continuation',
  SCOPE_RESOURCE: 'tooltrail.scope.resource',
  SCOPE_VISIBILITY: 'tooltrail.scope.visibility',
  SCOPE_SNAPSHOT: 'tooltrail.scope.snapshot',
  WARNINGS: 'tooltrail.warnings',
  MUTATION_BASIS: 'tooltrail.mutation.basis',
  MUTATION_TARGET_COUNT: 'tooltrail.mutation.target_count',
  MUTATION_EVIDENCE_SNAPSHOTS: 'tooltrail.mutation.evidence_snapshots',
  /** Tool call ids (`gen_ai.tool.call.id`) of the reads a mutation relied on. */
  MUTATION_EVIDENCE_CALL_IDS: 'tooltrail.mutation.evidence_call_ids',
  GUARD_DECISION: 'tooltrail.guard.decision',
  /** Per-session, strictly increasing from 1: a missing number is a missing span. */
  SESSION_SEQUENCE: 'tooltrail.session.sequence',
  /** Stamped by the collector from the credential; never trusted from the payload. */
  TENANT: 'tooltrail.tenant',
  /** Version of these conventions the emitter followed. */
  SEMCONV_VERSION: 'tooltrail.semconv.version',
  /** A page of a cursor traversal: the `gen_ai.tool.call.id` of the traversal's first page (since 1.5.0). */
  TRAVERSAL_ID: 'tooltrail.traversal.id',
  /** The page's position in its traversal, from 1 (the first page, read without a cursor). */
  TRAVERSAL_PAGE: 'tooltrail.traversal.page',
  /** Why the traversal can no longer be complete, on the page where the emitter saw it break (`TRAVERSAL_BREAKS`). */
  TRAVERSAL_BREAK: 'tooltrail.traversal.break',
  /**
   * Set by the ingest, never by an emitter (since 1.6.0): the instrumentation whose tool span the pipeline recognised
   * and normalised (`EMITTERS`: `openinference`, `openllmetry`, `ai-sdk`, `genai`, `mcp`).
   */
  EMITTER: 'tooltrail.emitter',
  /** Set by the ingest (since 1.6.0): the attributes it derived on such a span (a tool policy, the result, an ancestor). */
  INFERRED: 'tooltrail.inferred',
} as const;

export type AttrName = (typeof Attr)[keyof typeof Attr];

/** Span event carrying one warning's details. */
export const WarningEvent = {
  NAME: 'tooltrail.warning',
  CODE: 'code',
  MESSAGE: 'message',
  SOURCE: 'source',
} as const;

/**
 * Span event on a mutation that ran with the guard switched off: what the guard would have decided, and why.
 * Informational (observe-only rollouts); `tooltrail.guard.decision` stays absent, since no guard acted.
 */
export const GuardUnenforcedEvent = {
  NAME: 'tooltrail.guard.unenforced',
  /** `allowed`, `refused` or `review_requested`: the decision the guard would have taken. */
  DECISION: 'decision',
  /** Guard finding codes (`GUARD_FINDING_CODES`), each once; empty when it would have allowed the mutation. */
  FINDINGS: 'findings',
} as const;

/** Expected OTLP value type of every tooltrail attribute; spans that differ are kept and flagged (attribute-values.ts). */
export type AttrValueType = 'string' | 'bool' | 'int' | 'string[]';

export const ATTRIBUTE_TYPES: Readonly<Record<AttrName, AttrValueType>> = {
  [Attr.EFFECT]: 'string',
  [Attr.RESULT_STATUS]: 'string',
  [Attr.RESULT_COMPLETE]: 'bool',
  [Attr.RESULT_REASONS]: 'string[]',
  [Attr.RESULT_ITEM_COUNT]: 'int',
  [Attr.RESULT_CONTINUATION]: 'string',
  [Attr.SCOPE_RESOURCE]: 'string',
  [Attr.SCOPE_VISIBILITY]: 'string',
  [Attr.SCOPE_SNAPSHOT]: 'string',
  [Attr.WARNINGS]: 'string[]',
  [Attr.MUTATION_BASIS]: 'string',
  [Attr.MUTATION_TARGET_COUNT]: 'int',
  [Attr.MUTATION_EVIDENCE_SNAPSHOTS]: 'string[]',
  [Attr.MUTATION_EVIDENCE_CALL_IDS]: 'string[]',
  [Attr.GUARD_DECISION]: 'string',
  [Attr.SESSION_SEQUENCE]: 'int',
  [Attr.TENANT]: 'string',
  [Attr.SEMCONV_VERSION]: 'string',
  [Attr.TRAVERSAL_ID]: 'string',
  [Attr.TRAVERSAL_PAGE]: 'int',
  [Attr.TRAVERSAL_BREAK]: 'string',
  [Attr.EMITTER]: 'string',
  [Attr.INFERRED]: 'string[]',
};

/**
 * Contract attributes with no typed `tool_calls` column: judged like the others, then kept as text in the row's
 * `attributes` map, where the detectors' materialized views read the traversal ones (schema migration 0041).
 */
export const MAP_ONLY_ATTRIBUTES: ReadonlySet<AttrName> = new Set([
  Attr.SEMCONV_VERSION,
  Attr.TRAVERSAL_ID,
  Attr.TRAVERSAL_PAGE,
  Attr.TRAVERSAL_BREAK,
  Attr.EMITTER,
  Attr.INFERRED,
]);

/** Allowed values of the enumerated string attributes, for validation at every stage. */
export const ENUM_VALUES: Readonly<Partial<Record<AttrName, readonly string[]>>> = {
  [Attr.EFFECT]: EFFECTS,
  [Attr.RESULT_STATUS]: RESULT_STATUSES,
  [Attr.RESULT_CONTINUATION]: CONTINUATION_KINDS,
  [Attr.MUTATION_BASIS]: MUTATION_BASES,
  [Attr.GUARD_DECISION]: GUARD_DECISIONS,
  [Attr.TRAVERSAL_BREAK]: TRAVERSAL_BREAKS,
};
