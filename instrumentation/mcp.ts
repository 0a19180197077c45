/**
 * MCP client wrapper: every `callTool` becomes an `execute_tool {name}` span. Completeness comes from the tool's
 * structured result (the contract, when the server provides it) or from a `nextCursor` in it; a server that says
 * nothing is recorded as unknown. A tool's effect comes from the caller's declaration, else from the server's
 * annotations (`readOnlyHint`), else it is a mutation: MCP's own defaults assume an unannotated tool is destructive.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Effect } from '../contract/index.ts';
import { MCP_TOOL_ERROR } from '../contract/index.ts';
import type { GuardMode } from './config.ts';
import type { MutationPlan } from './guard.ts';
import type { MutationPolicy, ReadPolicy } from './policy.ts';
import type { FieldPolicies } from './redaction.ts';
import type { InterpretedResult } from './results.ts';
import { errorResult, interpretToolResult, partialResult, unknownResult } from './results.ts';
import type { Session } from './session.ts';
import type { MutationOutcome, ReadOutcome, TargetVerifier, ToolBinding } from './tool-call.ts';
import type { Tooltrail } from './tooltrail.ts';

/** The part of the SDK's Client this wrapper uses. */
export type McpClientLike = Pick<Client, 'callTool' | 'listTools'>;

/** The arguments of an MCP tool call, as the model sent them. */
export type McpArguments = Record<string, unknown> | undefined;

export interface McpToolPolicy {
  effect?: Effect;
  /**
   * Reads: the resource their results describe. Mutations: how to judge a call that comes without a plan (resource,
   * basis, targets from the arguments, evidence window); a `plan` in the call options still wins.
   */
  policy?: ReadPolicy | MutationPolicy<McpArguments>;
  /** Mutations: re-checks each target just before the call is forwarded (see `MutationDefinition.verifyTarget`). */
  verifyTarget?: TargetVerifier<McpArguments>;
  record?: { arguments?: FieldPolicies; result?: FieldPolicies };
  itemId?: (item: unknown) => string | number | undefined;
}

export interface InstrumentMcpOptions {
  /** Per tool name: its effect (overrides annotations) and opt-in recording. */
  tools?: Record<string, McpToolPolicy>;
  /** `gen_ai.tool.type` recorded on MCP tool spans. Default: none. */
  toolType?: string;
}

export interface McpCallOptions {
  /** Required for mutations: basis, targets, evidence. A mutation without one is never allowed. */
  plan?: MutationPlan;
  toolCallId?: string;
  /** Mutations only: overrides the configured `guard` for this call (see `MutationCallOptions`). */
  guard?: GuardMode;
  requestOptions?: Parameters<Client['callTool']>[2];
}

export type McpCallOutcome =
  | ({ effect: 'read' } & ReadOutcome<unknown, CallToolResult>)
  | ({ effect: 'mutation' } & MutationOutcome<unknown, CallToolResult>);

export interface InstrumentedMcpClient {
  callTool(
    session: Session,
    params: { name: string; arguments?: Record<string, unknown> },
    options?: McpCallOptions,
  ): Promise<McpCallOutcome>;
  /**
   * Read the server's tool annotations (every page, up to `maxPages`) so effects follow `readOnlyHint`. Says whether
   * it listed every tool; a tool it did not list is a mutation.
   */
  refreshToolEffects(maxPages?: number): Promise<ToolListing>;
  effectOf(toolName: string): Effect;
}

/** What `refreshToolEffects` saw: it never stops at a page limit without saying so. */
export interface ToolListing {
  /** True only when the server's last page had no `nextCursor`. */
  complete: boolean;
  pages: number;
  /** Where listing stopped, when it hit `maxPages` or the server repeated a cursor. */
  nextCursor?: string;
  /** The effect of every listed tool; any other tool is a mutation. */
  effects: ReadonlyMap<string, Effect>;
}

export const DEFAULT_TOOL_LIST_MAX_PAGES = 50;
const MAX_CACHED_TOOLS = 1000;

export function instrumentMcpClient(
  tooltrail: Tooltrail,
  client: McpClientLike,
  options: InstrumentMcpOptions = {},
): InstrumentedMcpClient {
  let annotated = new Map<string, Effect>();
  const bindings = new Map<string, ToolBinding<CallToolResult, unknown, McpArguments>>();
  const bound = (name: string) => {
    let tool = bindings.get(name);
    if (!tool) {
      const policy = options.tools?.[name] ?? {};
      const declared = policy.policy;
      tool = tooltrail.runner.bind<CallToolResult, unknown, McpArguments>({
        toolName: name,
        toolType: options.toolType,
        recordArguments: policy.record?.arguments,
        recordResult: policy.record?.result,
        interpret: interpretMcpResult,
        itemId: policy.itemId,
        resource: declared?.resource,
        policy: declared !== undefined && 'basis' in declared ? declared : undefined,
        verifyTarget: policy.verifyTarget,
      });
      // Names come from the model: cache a bounded number of them.
      if (bindings.size < MAX_CACHED_TOOLS) bindings.set(name, tool);
    }
    return tool;
  };
  const effectOf = (name: string): Effect => options.tools?.[name]?.effect ?? annotated.get(name) ?? 'mutation';

  return {
    effectOf,
    async refreshToolEffects(maxPages = DEFAULT_TOOL_LIST_MAX_PAGES) {
      // A fresh map replaces the old one only when listing succeeded: a tool no longer listed is a mutation again.
      const listedEffects = new Map<string, Effect>();
      const seen = new Set<string>();
      let cursor: string | undefined;
      let pages = 0;
      let complete = false;
      while (pages < maxPages) {
        const listed = await client.listTools(cursor === undefined ? {} : { cursor });
        pages += 1;
        for (const tool of listed.tools) {
          listedEffects.set(tool.name, tool.annotations?.readOnlyHint === true ? 'read' : 'mutation');
        }
        cursor = listed.nextCursor;
        if (!cursor) {
          complete = true;
          break;
        }
        if (seen.has(cursor)) break;
        seen.add(cursor);
      }
      annotated = listedEffects;
      return {
        complete,
        pages,
        ...(complete || cursor === undefined ? {} : { nextCursor: cursor }),
        effects: annotated,
      };
    },
    async callTool(session, params, callOptions = {}) {
      const tool = bound(params.name);
      const call = {
        ...(callOptions.toolCallId === undefined ? {} : { toolCallId: callOptions.toolCallId }),
        ...(callOptions.guard === undefined ? {} : { guard: callOptions.guard }),
      };
      const execute = async () =>
        (await client.callTool(params, undefined, callOptions.requestOptions)) as CallToolResult;
      const effect = effectOf(params.name);
      if (effect === 'read') {
        return { effect, ...(await tooltrail.runner.read(tool, session, params.arguments, call, execute)) };
      }
      return {
        effect,
        ...(await tooltrail.runner.mutate(tool, session, params.arguments, call, callOptions.plan, execute)),
      };
    },
  };
}

/** Completeness of an MCP tool result, from what the server actually said. */
export function interpretMcpResult(result: CallToolResult): InterpretedResult {
  const structured = result.structuredContent;
  if (result.isError) {
    // The content of an error result is tool output, so it is not copied into the span.
    const inner = structured === undefined ? undefined : interpretToolResult(structured);
    const reasons = inner?.recognized === 'contract' ? inner.result.completeness.reasons : [];
    return {
      result: errorResult({ type: MCP_TOOL_ERROR, message: 'the MCP tool returned isError', reasons }),
      recognized: inner?.recognized ?? 'unknown',
    };
  }
  if (structured === undefined) {
    return {
      result: unknownResult(undefined, 'the MCP server returned no structured content: completeness unknown'),
      recognized: 'unknown',
    };
  }
  const inner = interpretToolResult(structured);
  if (inner.recognized !== 'unknown') return inner;
  const cursor = structured.nextCursor;
  if (typeof cursor === 'string' && cursor.length > 0) {
    const items = listIn(structured);
    return {
      result: partialResult({
        ...(items ? { items } : { data: structured }),
        reasons: [{ code: 'MORE_PAGES_AVAILABLE', message: 'the result carries a nextCursor' }],
        continuation: { kind: 'next_cursor', cursor },
      }),
      recognized: 'pagination',
    };
  }
  // No nextCursor is not "no more pages" for a tool result: the server said nothing about completeness.
  const items = listIn(structured);
  return {
    result: unknownResult(items ?? structured, 'the MCP tool said nothing about completeness'),
    recognized: 'unknown',
  };
}

/** `items`, or the only array-valued field (`accounts`, `tools`, ...) of a structured result. */
function listIn(structured: Record<string, unknown>): unknown[] | undefined {
  if (Array.isArray(structured.items)) return structured.items;
  const arrays = Object.values(structured).filter(Array.isArray);
  return arrays.length === 1 ? arrays[0] : undefined;
}
