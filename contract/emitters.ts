/**
 * The tool spans of instrumentations that do not speak the tooltrail contract, as they emit them: how each marks a
 * tool call and where it puts the tool's name, call id, arguments, result and session. The ingest recognises these
 * spans and derives the contract's attributes from them (ingest/emitters/); the keys are the emitters' own, read
 * from their sources (docs/emitters/ has one page per emitter).
 */
import { GenAi, McpAttr } from './attributes.ts';

export const EMITTERS = ['openinference', 'openllmetry', 'ai-sdk', 'genai', 'mcp'] as const;
export type EmitterName = (typeof EMITTERS)[number];

/** OpenInference (Arize): LangChain, LlamaIndex, OpenAI Agents, CrewAI, ADK and Strands processors. */
export const OpenInference = {
  SPAN_KIND: 'openinference.span.kind',
  /** The value of `openinference.span.kind` on a tool span. */
  TOOL: 'TOOL',
  TOOL_NAME: 'tool.name',
  TOOL_CALL_ID: 'tool_call.id',
  INPUT_VALUE: 'input.value',
  OUTPUT_VALUE: 'output.value',
  SESSION_ID: 'session.id',
} as const;

/** OpenLLMetry (traceloop-sdk, @traceloop/node-server-sdk): `@tool`-decorated functions, span name `{tool}.tool`. */
export const OpenLLMetry = {
  SPAN_KIND: 'traceloop.span.kind',
  /** The value of `traceloop.span.kind` on a tool span. */
  TOOL: 'tool',
  ENTITY_NAME: 'traceloop.entity.name',
  ENTITY_INPUT: 'traceloop.entity.input',
  ENTITY_OUTPUT: 'traceloop.entity.output',
  /** `Traceloop.set_association_properties({"session_id": ...})`. */
  SESSION_ID: 'traceloop.association.properties.session_id',
} as const;

/** The AI SDK's telemetry (5 and 6): one `ai.toolCall` span per tool execution. */
export const AiSdk = {
  SPAN_NAME: 'ai.toolCall',
  TOOL_NAME: 'ai.toolCall.name',
  TOOL_CALL_ID: 'ai.toolCall.id',
  ARGS: 'ai.toolCall.args',
  RESULT: 'ai.toolCall.result',
  /** `experimental_telemetry.metadata.sessionId`, copied onto every span of the call (AI SDK 5 and 6). */
  SESSION_ID: 'ai.telemetry.metadata.sessionId',
  /** A `runtimeContext.sessionId` (AI SDK 7 `@ai-sdk/otel`): on the `invoke_agent` span, or every span (legacy). */
  CONTEXT_SESSION_ID: 'ai.settings.context.sessionId',
} as const;

/** pydantic-ai's recorded arguments and result before it followed the GenAI names. */
export const PydanticAi = {
  TOOL_ARGUMENTS: 'tool_arguments',
  TOOL_RESPONSE: 'tool_response',
} as const;

/** The value of `mcp.method.name` on a tool call. */
export const MCP_TOOLS_CALL = 'tools/call' as const;

/** Where one emitter puts a tool call's parts on its span; the first key present wins. */
export interface EmitterShape {
  name: EmitterName;
  toolName: readonly string[];
  callId: readonly string[];
  arguments: readonly string[];
  result: readonly string[];
  /** The tool's name in the span name when no attribute says it: `execute_tool {tool}`, `{tool}.tool`. */
  spanNamePrefix?: string;
  spanNameSuffix?: string;
}

const GENAI_PAYLOAD = {
  arguments: [GenAi.TOOL_CALL_ARGUMENTS, PydanticAi.TOOL_ARGUMENTS],
  result: [GenAi.TOOL_CALL_RESULT, PydanticAi.TOOL_RESPONSE],
};

export const EMITTER_SHAPES: Readonly<Record<EmitterName, EmitterShape>> = {
  openinference: {
    name: 'openinference',
    toolName: [OpenInference.TOOL_NAME, GenAi.TOOL_NAME],
    callId: [OpenInference.TOOL_CALL_ID, GenAi.TOOL_CALL_ID],
    arguments: [OpenInference.INPUT_VALUE],
    result: [OpenInference.OUTPUT_VALUE],
  },
  openllmetry: {
    name: 'openllmetry',
    toolName: [OpenLLMetry.ENTITY_NAME, GenAi.TOOL_NAME],
    callId: [GenAi.TOOL_CALL_ID],
    arguments: [OpenLLMetry.ENTITY_INPUT],
    result: [OpenLLMetry.ENTITY_OUTPUT],
    spanNameSuffix: '.tool',
  },
  'ai-sdk': {
    name: 'ai-sdk',
    toolName: [AiSdk.TOOL_NAME],
    callId: [AiSdk.TOOL_CALL_ID],
    arguments: [AiSdk.ARGS],
    result: [AiSdk.RESULT],
  },
  genai: {
    name: 'genai',
    toolName: [GenAi.TOOL_NAME],
    callId: [GenAi.TOOL_CALL_ID],
    ...GENAI_PAYLOAD,
    spanNamePrefix: 'execute_tool ',
  },
  mcp: {
    name: 'mcp',
    toolName: [GenAi.TOOL_NAME],
    callId: [GenAi.TOOL_CALL_ID, McpAttr.JSONRPC_REQUEST_ID],
    ...GENAI_PAYLOAD,
    spanNamePrefix: `${MCP_TOOLS_CALL} `,
  },
};

/** Where a session id may be, on a tool span or on its ancestors, in this order. */
export const SESSION_KEYS: readonly string[] = [
  GenAi.CONVERSATION_ID,
  OpenInference.SESSION_ID,
  OpenLLMetry.SESSION_ID,
  AiSdk.SESSION_ID,
  AiSdk.CONTEXT_SESSION_ID,
  McpAttr.SESSION_ID,
];

/** Every key that may hold a tool call's raw arguments or result: never stored as it is (secrets live there). */
export const PAYLOAD_KEYS: ReadonlySet<string> = new Set(
  Object.values(EMITTER_SHAPES).flatMap((s) => [...s.arguments, ...s.result]),
);

/**
 * Keys that hold prompts, completions, messages or tool payloads on the other spans of these emitters (LLM, chain,
 * agent spans): tool arguments and results are in them too, so they are not stored as sent either.
 */
export const CONTENT_KEYS: ReadonlySet<string> = new Set([
  ...PAYLOAD_KEYS,
  'gen_ai.input.messages',
  'gen_ai.output.messages',
  'gen_ai.system_instructions',
  'ai.prompt',
  'ai.prompt.messages',
  'ai.response.text',
  'ai.response.toolCalls',
  'ai.response.object',
  'pydantic_ai.all_messages',
  'final_result',
]);

/**
 * The same, for emitters that flatten messages into one key per field: OpenInference's
 * `llm.input_messages.0.message.content`, OpenLLMetry's `gen_ai.prompt.0.content`. A prefix marked `indexed` counts
 * only before a digit (`gen_ai.prompt.name` is the MCP conventions' prompt name, not content).
 */
export const CONTENT_KEY_PREFIXES: readonly { prefix: string; indexed: boolean }[] = [
  { prefix: 'llm.input_messages.', indexed: false },
  { prefix: 'llm.output_messages.', indexed: false },
  { prefix: 'llm.prompts.', indexed: false },
  { prefix: 'gen_ai.prompt.', indexed: true },
  { prefix: 'gen_ai.completion.', indexed: true },
];

export function isContentKey(key: string): boolean {
  if (CONTENT_KEYS.has(key)) return true;
  for (const { prefix, indexed } of CONTENT_KEY_PREFIXES) {
    if (!key.startsWith(prefix)) continue;
    const c = key.charCodeAt(prefix.length);
    if (!indexed || (c >= 48 && c <= 57)) return true;
  }
  return false;
}
