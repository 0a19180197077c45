/**
 * The relay between one client connection and one server connection, at the JSON-RPC message level: every message
 * (requests, responses, notifications, cancellation, progress, server-to-client requests) passes unchanged in both
 * directions. It adds a span per request, reads completeness from tool results, and answers a destructive
 * `tools/call` itself when the guard stops it: that call never reaches the server.
 */
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Span, Tracer } from '@opentelemetry/api';
import { McpAttr, type PolicyFile, resolveEffect, type ToolAnnotations, toolPolicyOf } from '../contract/index.ts';
import { readCompleteness, readListCompleteness } from './completeness.ts';
import type { GuardJudgement, GuardStep } from './guard-step.ts';
import { stoppedResult } from './refusal.ts';
import type { Conversations } from './session.ts';
import {
  recordJsonRpcError,
  recordMutationPlan,
  recordResult,
  recordToolError,
  recordTraversal,
  startRequestSpan,
  toolCallAttributes,
} from './spans.ts';

export interface RelayOptions {
  /** Faces the MCP client. */
  downstream: Transport;
  /** Faces the MCP server. */
  upstream: Transport;
  tracer: Tracer;
  policy: PolicyFile;
  guard: GuardStep;
  conversations: Conversations;
  /** One per client connection: the conversation id when the client sends none in `_meta`. */
  connectionConversationId: string;
  networkTransport: 'pipe' | 'tcp';
  /** The client-facing `Mcp-Session-Id`, when there is one. */
  sessionId?: string | undefined;
  /** Called once when either side closed and the other was closed in turn. */
  onClosed?: () => void;
  /** Diagnostics (stderr on stdio: stdout is the protocol). */
  log: (line: string) => void;
}

interface Pending {
  span: Span;
  method: string;
  tool?: ToolCall;
}

interface ToolCall {
  name: string;
  callId: string;
  conversationId: string;
  effect: 'read' | 'mutation';
  /** What the client sent: a read's cursor is in it. */
  args: unknown;
}

const LIST_KEYS: Record<string, string> = {
  'tools/list': 'tools',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
  'prompts/list': 'prompts',
};
const OWN_ID_PREFIX = 'tooltrail-proxy-';
const MAX_TOOL_LIST_PAGES = 50;
const MAX_KNOWN_TOOLS = 10_000;

export interface Relay {
  close(): Promise<void>;
  /** Requests the client sent that have no answer yet (tests and the bench check it drains to zero). */
  pendingCount(): number;
}

export async function startRelay(o: RelayOptions): Promise<Relay> {
  const { downstream, upstream, tracer } = o;
  /** Client requests forwarded (or being judged), by id. */
  const pending = new Map<RequestId, Pending>();
  /** Server-to-client requests (sampling, elicitation, roots), by id. */
  const serverPending = new Map<RequestId, Span>();
  /** progressToken -> the client request it belongs to, so progress goes on that request's stream. */
  const progressOf = new Map<string | number, RequestId>();
  const own = new Map<string, (msg: Record<string, unknown>) => void>();
  const annotations = new Map<string, { hints: ToolAnnotations | undefined; outputSchema: boolean }>();
  let ownSeq = 0;
  let protocolVersion: string | undefined;
  let closed = false;

  const base = () => ({
    [McpAttr.NETWORK_TRANSPORT]: o.networkTransport,
    [McpAttr.JSONRPC_PROTOCOL_VERSION]: '2.0',
    ...(protocolVersion ? { [McpAttr.PROTOCOL_VERSION]: protocolVersion } : {}),
    ...(o.sessionId ? { [McpAttr.SESSION_ID]: o.sessionId } : {}),
  });

  const sendDown = (msg: JSONRPCMessage, related?: RequestId) =>
    downstream.send(msg, related === undefined ? undefined : { relatedRequestId: related }).catch((err: Error) => {
      o.log(`tooltrail mcp-proxy: could not send to the client: ${err.message}`);
    });
  const sendUp = (msg: JSONRPCMessage) =>
    upstream.send(msg).catch((err: Error) => {
      o.log(`tooltrail mcp-proxy: could not send to the server: ${err.message}`);
      const m = msg as Record<string, unknown>;
      // A request the server never received is answered, never left hanging.
      if (typeof m.method === 'string' && m.id !== undefined) {
        onUpstream({
          jsonrpc: '2.0',
          id: m.id as RequestId,
          error: { code: -32603, message: `tooltrail mcp-proxy: the server is unreachable: ${err.message}` },
        });
      }
    });

  /** The proxy's own request to the server (tool annotations); its answer is not forwarded. */
  const ownRequest = (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> =>
    new Promise((resolve) => {
      ownSeq += 1;
      const id = `${OWN_ID_PREFIX}${ownSeq}`;
      own.set(id, resolve);
      upstream.send({ jsonrpc: '2.0', id, method, params } as JSONRPCMessage).catch(() => {
        own.delete(id);
        resolve({});
      });
    });

  const learnTools = (result: unknown) => {
    const tools = (result as { tools?: unknown })?.tools;
    if (!Array.isArray(tools)) return;
    for (const t of tools as { name?: unknown; annotations?: ToolAnnotations; outputSchema?: unknown }[]) {
      if (typeof t?.name !== 'string') continue;
      if (annotations.size >= MAX_KNOWN_TOOLS && !annotations.has(t.name)) continue;
      annotations.set(t.name, { hints: t.annotations, outputSchema: t.outputSchema !== undefined });
    }
  };
  /** A call to a tool the client never listed: read the server's annotations (every page) before judging it. */
  const ensureKnown = async (name: string) => {
    if (annotations.has(name) || toolPolicyOf(o.policy, name)?.effect !== undefined) return;
    let cursor: string | undefined;
    for (let page = 0; page < MAX_TOOL_LIST_PAGES; page += 1) {
      const answer = await ownRequest('tools/list', cursor === undefined ? {} : { cursor });
      learnTools(answer.result);
      const next = (answer.result as { nextCursor?: unknown } | undefined)?.nextCursor;
      if (typeof next !== 'string' || next.length === 0 || annotations.has(name)) break;
      cursor = next;
    }
  };

  const onDownstream = async (msg: JSONRPCMessage) => {
    const m = msg as Record<string, unknown>;
    const method = m.method;
    if (typeof method !== 'string') {
      // The client's answer to a server request.
      const id = m.id as RequestId;
      const span = serverPending.get(id);
      if (span) {
        serverPending.delete(id);
        if (m.error) recordJsonRpcError(span, m.error as { code?: unknown });
        span.end();
      }
      void sendUp(msg);
      return;
    }
    const params = (m.params ?? {}) as Record<string, unknown>;
    if (m.id === undefined) {
      if (method === 'notifications/cancelled') {
        const id = params.requestId as RequestId;
        const p = pending.get(id);
        if (p) {
          pending.delete(id);
          p.span.setAttribute('error.type', 'cancelled');
          p.span.end();
        }
      }
      void sendUp(msg);
      return;
    }
    const id = m.id as RequestId;
    const meta = params._meta as Record<string, unknown> | undefined;
    const progressToken = meta?.progressToken;
    if (typeof progressToken === 'string' || typeof progressToken === 'number') progressOf.set(progressToken, id);
    const target =
      method === 'tools/call' || method === 'prompts/get'
        ? (params.name as string | undefined)
        : method === 'resources/read'
          ? (params.uri as string | undefined)
          : undefined;
    const span = startRequestSpan(tracer, { method, target, requestId: id, meta, base: base() });
    if (method !== 'tools/call' || typeof target !== 'string') {
      pending.set(id, { span, method });
      void sendUp(msg);
      return;
    }
    const conversationId = o.conversations.conversationOf(meta, o.connectionConversationId);
    const callId =
      typeof meta?.['gen_ai.tool.call.id'] === 'string' ? (meta['gen_ai.tool.call.id'] as string) : randomUUID();
    const policy = toolPolicyOf(o.policy, target);
    await ensureKnown(target);
    const known = annotations.get(target);
    const { effect, destructive } = resolveEffect(policy, known?.hints);
    const tool: ToolCall = { name: target, callId, conversationId, effect, args: params.arguments };
    span.setAttributes(
      toolCallAttributes({
        toolName: target,
        callId,
        conversationId,
        sequence: o.conversations.nextSequence(conversationId),
        effect,
      }),
    );
    pending.set(id, { span, method, tool });
    if (effect === 'mutation' && destructive) {
      const judgement = judge(tool, params.arguments, span);
      if (judgement.decision !== 'allowed' && judgement.enforced) {
        pending.delete(id);
        recordToolError(span);
        span.end();
        const result = stoppedResult({
          toolName: target,
          callId,
          resource: policy?.resource,
          judgement,
          hasOutputSchema: known?.outputSchema === true,
        });
        void sendDown({ jsonrpc: '2.0', id, result } as JSONRPCMessage, id);
        return;
      }
    }
    void sendUp(msg);
  };

  const judge = (tool: ToolCall, args: unknown, span: Span): GuardJudgement => {
    const policy = toolPolicyOf(o.policy, tool.name);
    const basis = policy?.basis ?? 'presence';
    const judgement = o.guard.judge(tool.conversationId, {
      callId: tool.callId,
      toolName: tool.name,
      args,
      resource: policy?.resource,
      basis,
      targets: policy?.targets,
      evidenceMaxAgeMs: policy?.evidenceMaxAgeMs,
    });
    recordMutationPlan(span, basis, judgement, policy?.resource);
    return judgement;
  };

  const onUpstream = (msg: JSONRPCMessage) => {
    const m = msg as Record<string, unknown>;
    const method = m.method;
    if (typeof method !== 'string') {
      const id = m.id as RequestId;
      if (typeof id === 'string' && id.startsWith(OWN_ID_PREFIX)) {
        const resolve = own.get(id);
        own.delete(id);
        resolve?.(m);
        return;
      }
      const p = pending.get(id);
      if (p) {
        pending.delete(id);
        finish(p, m);
      }
      void sendDown(msg, id);
      return;
    }
    if (m.id !== undefined) {
      const span = startRequestSpan(tracer, {
        method,
        target: undefined,
        requestId: m.id as RequestId,
        meta: undefined,
        base: base(),
      });
      serverPending.set(m.id as RequestId, span);
    }
    void sendDown(msg, relatedOf(m));
  };

  /** Which client request a server message belongs to (its stream on Streamable HTTP). */
  const relatedOf = (m: Record<string, unknown>): RequestId | undefined => {
    const params = m.params as Record<string, unknown> | undefined;
    const token = params?.progressToken;
    if ((typeof token === 'string' || typeof token === 'number') && progressOf.has(token)) return progressOf.get(token);
    // With one request in flight, a log line or a sampling request during it is that request's.
    if (pending.size === 1) return pending.keys().next().value;
    return undefined;
  };

  const finish = (p: Pending, m: Record<string, unknown>) => {
    const { span } = p;
    if (m.error) {
      recordJsonRpcError(span, m.error as { code?: unknown; message?: unknown });
    } else if (p.method === 'initialize') {
      const version = (m.result as { protocolVersion?: unknown } | undefined)?.protocolVersion;
      if (typeof version === 'string') {
        protocolVersion = version;
        span.setAttribute(McpAttr.PROTOCOL_VERSION, version);
        upstream.setProtocolVersion?.(version);
      }
    } else if (p.method === 'tools/list') {
      learnTools(m.result);
    }
    const listKey = LIST_KEYS[p.method];
    if (listKey && !m.error) recordResult(span, readListCompleteness(m.result, listKey).result);
    if (p.tool) {
      const tool = p.tool;
      const policy = toolPolicyOf(o.policy, tool.name);
      const read = m.error ? readCompleteness({ isError: true }, policy) : readCompleteness(m.result, policy);
      recordResult(span, read.result);
      if ((m.result as { isError?: unknown } | undefined)?.isError === true) recordToolError(span);
      if (tool.effect === 'read') {
        try {
          const traversal = o.guard.recordRead(tool.conversationId, {
            callId: tool.callId,
            toolName: tool.name,
            resource: policy?.resource,
            result: read.result,
            args: tool.args,
            cursor: policy?.cursor,
          });
          if (traversal !== undefined) recordTraversal(span, traversal);
        } catch (err) {
          // A read the ledger could not take is missing evidence (the guard refuses on it), never a lost answer.
          o.log(`tooltrail mcp-proxy: could not record the read ${tool.callId}: ${(err as Error).message}`);
        }
      }
    }
    span.end();
    for (const [token, id] of progressOf) if (!pending.has(id)) progressOf.delete(token);
  };

  const closeBoth = async () => {
    if (closed) return;
    closed = true;
    for (const p of pending.values()) {
      p.span.setAttribute('error.type', 'connection_closed');
      p.span.end();
    }
    pending.clear();
    for (const s of serverPending.values()) s.end();
    serverPending.clear();
    await Promise.allSettled([downstream.close(), upstream.close()]);
    o.onClosed?.();
  };

  // Messages from one side are handled in order: a judged tools/call is not overtaken by what followed it.
  let downChain: Promise<void> = Promise.resolve();
  downstream.onmessage = (msg) => {
    downChain = downChain
      .then(() => onDownstream(msg))
      .catch((err: Error) => o.log(`tooltrail mcp-proxy: ${err.stack ?? err.message}`));
  };
  upstream.onmessage = (msg) => onUpstream(msg);
  downstream.onclose = () => void closeBoth();
  upstream.onclose = () => void closeBoth();
  downstream.onerror = (err) => o.log(`tooltrail mcp-proxy: client connection: ${err.message}`);
  upstream.onerror = (err) => o.log(`tooltrail mcp-proxy: server connection: ${err.message}`);

  await upstream.start();
  await downstream.start();
  return {
    close: closeBoth,
    pendingCount: () => pending.size,
  };
}
