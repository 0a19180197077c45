/**
 * The relay on the real SDK (client, McpServer, in-memory transports): everything passes through, tool calls are
 * spans with the MCP and tooltrail attributes, and a destructive call on incomplete evidence never reaches the
 * server in `enforce`, while `observe` lets it through and records what the guard would have decided.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { z } from 'zod';
import type { PolicyFile } from '../../../contract/index.ts';
import {
  Attr,
  EXECUTE_TOOL,
  GenAi,
  GuardUnenforcedEvent,
  MCP_TOOL_ERROR,
  McpAttr,
  OtelAttr,
} from '../../../contract/index.ts';
import { createGuardStep, type GuardMode } from '../../../mcp-proxy/guard-step.ts';
import { REVIEW_META_KEY } from '../../../mcp-proxy/refusal.ts';
import { startRelay } from '../../../mcp-proxy/relay.ts';
import { createConversations } from '../../../mcp-proxy/session.ts';

interface World {
  client: Client;
  exporter: InMemorySpanExporter;
  deleted: string[];
  close(): Promise<void>;
}

async function world(guard: GuardMode, policy: PolicyFile = { tools: {} }): Promise<World> {
  const deleted: string[] = [];
  const server = new McpServer({ name: 'accounts', version: '1.0.0' });
  const accounts = ['a1', 'a2', 'a3'];
  server.registerTool(
    'list_accounts',
    { inputSchema: { complete: z.boolean().optional() }, annotations: { readOnlyHint: true } },
    async ({ complete }) => {
      const page = complete ? accounts : accounts.slice(0, 2);
      const structured = complete
        ? { items: page.map((id) => ({ id })), hasMore: false }
        : { items: page.map((id) => ({ id })), nextCursor: 'p2' };
      return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured };
    },
  );
  server.registerTool(
    'delete_accounts',
    { inputSchema: { ids: z.array(z.string()) }, annotations: { readOnlyHint: false, destructiveHint: true } },
    async ({ ids }) => {
      deleted.push(...ids);
      return { content: [{ type: 'text', text: `deleted ${ids.length}` }] };
    },
  );
  server.registerTool('fail', { inputSchema: {}, annotations: { readOnlyHint: true } }, async () => ({
    isError: true,
    content: [{ type: 'text', text: 'secret output' }],
  }));
  server.registerTool('slow', { inputSchema: {}, annotations: { readOnlyHint: true } }, async (_args, extra) => {
    const token = extra._meta?.progressToken;
    if (token !== undefined) {
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 1, total: 2 },
      });
      await extra.sendNotification({
        method: 'notifications/progress',
        params: { progressToken: token, progress: 2, total: 2 },
      });
    }
    return { content: [{ type: 'text', text: 'done' }] };
  });
  const [serverSide, proxyUp] = InMemoryTransport.createLinkedPair();
  const [proxyDown, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const exporter = new InMemorySpanExporter();
  const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
  const relay = await startRelay({
    downstream: proxyDown,
    upstream: proxyUp,
    tracer: provider.getTracer('test'),
    policy,
    guard: createGuardStep({ mode: guard, evidenceWindow: 50 }),
    conversations: createConversations(),
    connectionConversationId: 'conn-1',
    networkTransport: 'pipe',
    log: () => {},
  });
  const client = new Client({ name: 'test-client', version: '1.0.0' });
  await client.connect(clientSide);
  return {
    client,
    exporter,
    deleted,
    async close() {
      await client.close();
      await relay.close();
      await server.close();
      await provider.shutdown();
    },
  };
}

const policy: PolicyFile = {
  tools: {
    list_accounts: { resource: 'accounts' },
    delete_accounts: { resource: 'accounts', basis: 'presence', targets: '/ids' },
  },
};

const toolSpans = (w: World) =>
  w.exporter.getFinishedSpans().filter((s) => s.attributes[GenAi.OPERATION_NAME] === EXECUTE_TOOL);

test('enforce: a destructive call after an incomplete read never reaches the server and the model gets the review request', async () => {
  const w = await world('enforce', policy);
  try {
    await w.client.callTool({ name: 'list_accounts', arguments: {} });
    const out = await w.client.callTool({ name: 'delete_accounts', arguments: { ids: ['a1'] } });
    assert.equal(out.isError, true);
    assert.deepEqual(w.deleted, [], 'the server never saw the call');
    const review = out.structuredContent as {
      decision: string;
      reasons: { code: string }[];
      notSeen: { code: string }[];
      options: unknown[];
    };
    assert.equal(review.decision, 'refused');
    assert.ok(review.reasons.some((r) => r.code === 'EVIDENCE_INCOMPLETE'));
    assert.deepEqual(
      review.notSeen.map((n) => n.code),
      ['MORE_PAGES_AVAILABLE'],
    );
    assert.ok(review.options.length > 0);
    assert.match((out.content as { text: string }[])[0]?.text ?? '', /was not sent to the server/);
    const [read, del] = toolSpans(w);
    assert.equal(read?.attributes[Attr.RESULT_COMPLETE], false);
    assert.deepEqual(read?.attributes[Attr.RESULT_REASONS], ['MORE_PAGES_AVAILABLE']);
    assert.equal(del?.attributes[Attr.GUARD_DECISION], 'refused');
    assert.equal(del?.attributes[Attr.EFFECT], 'mutation');
    assert.equal(del?.attributes[Attr.MUTATION_TARGET_COUNT], 1);
    assert.deepEqual(del?.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [read?.attributes[GenAi.TOOL_CALL_ID]]);
    assert.equal(del?.name, 'tools/call delete_accounts');
  } finally {
    await w.close();
  }
});

test('enforce: after a complete read, a delete of what it returned is allowed and reaches the server', async () => {
  const w = await world('enforce', policy);
  try {
    await w.client.callTool({ name: 'list_accounts', arguments: { complete: true } });
    const out = await w.client.callTool({ name: 'delete_accounts', arguments: { ids: ['a3'] } });
    assert.notEqual(out.isError, true);
    assert.deepEqual(w.deleted, ['a3']);
    assert.equal(toolSpans(w)[1]?.attributes[Attr.GUARD_DECISION], 'allowed');
  } finally {
    await w.close();
  }
});

test('enforce: a target the complete read did not return is refused (TARGETS_NOT_IN_EVIDENCE)', async () => {
  const w = await world('enforce', policy);
  try {
    await w.client.callTool({ name: 'list_accounts', arguments: { complete: true } });
    const out = await w.client.callTool({ name: 'delete_accounts', arguments: { ids: ['zz'] } });
    assert.equal(out.isError, true);
    assert.ok(
      (out.structuredContent as { reasons: { code: string }[] }).reasons.some(
        (r) => r.code === 'TARGETS_NOT_IN_EVIDENCE',
      ),
    );
    assert.deepEqual(w.deleted, []);
  } finally {
    await w.close();
  }
});

test('review: the call is held (review_requested) and does not reach the server', async () => {
  const w = await world('review', policy);
  try {
    const out = await w.client.callTool({ name: 'delete_accounts', arguments: { ids: ['a1'] } });
    assert.equal(out.isError, true);
    assert.equal((out.structuredContent as { decision: string }).decision, 'review_requested');
    assert.deepEqual(w.deleted, []);
    assert.equal(toolSpans(w)[0]?.attributes[Attr.GUARD_DECISION], 'review_requested');
  } finally {
    await w.close();
  }
});

test('observe: the call reaches the server; the span has no decision but says what the guard would have done', async () => {
  const w = await world('observe', policy);
  try {
    await w.client.callTool({ name: 'list_accounts', arguments: {} });
    const out = await w.client.callTool({ name: 'delete_accounts', arguments: { ids: ['a1'] } });
    assert.notEqual(out.isError, true);
    assert.deepEqual(w.deleted, ['a1']);
    const del = toolSpans(w)[1];
    assert.equal(del?.attributes[Attr.GUARD_DECISION], undefined);
    const event = del?.events.find((e) => e.name === GuardUnenforcedEvent.NAME);
    assert.equal(event?.attributes?.[GuardUnenforcedEvent.DECISION], 'refused');
    assert.deepEqual(event?.attributes?.[GuardUnenforcedEvent.FINDINGS], ['EVIDENCE_INCOMPLETE']);
  } finally {
    await w.close();
  }
});

test('a tool call span carries the MCP semantic conventions and the session', async () => {
  const w = await world('enforce', policy);
  try {
    await w.client.callTool({ name: 'list_accounts', arguments: {}, _meta: { 'gen_ai.conversation.id': 'conv-7' } });
    await w.client.callTool({ name: 'list_accounts', arguments: {} });
    const [first, second] = toolSpans(w);
    assert.equal(first?.attributes[McpAttr.METHOD_NAME], 'tools/call');
    assert.equal(first?.attributes[GenAi.TOOL_NAME], 'list_accounts');
    assert.equal(typeof first?.attributes[McpAttr.JSONRPC_REQUEST_ID], 'string');
    assert.equal(
      first?.attributes[McpAttr.PROTOCOL_VERSION],
      w.client.getServerVersion() ? first?.attributes[McpAttr.PROTOCOL_VERSION] : '',
    );
    assert.match(String(first?.attributes[McpAttr.PROTOCOL_VERSION]), /^\d{4}-\d{2}-\d{2}$/);
    assert.equal(first?.attributes[GenAi.CONVERSATION_ID], 'conv-7', 'the conversation id from _meta');
    assert.equal(second?.attributes[GenAi.CONVERSATION_ID], 'conn-1', 'else the connection');
    assert.equal(first?.attributes[Attr.SESSION_SEQUENCE], 1);
    assert.equal(second?.attributes[Attr.SESSION_SEQUENCE], 1);
    assert.equal(first?.attributes[Attr.SCOPE_RESOURCE], 'accounts');
    await w.client.listTools();
    const init = w.exporter.getFinishedSpans().find((s) => s.name === 'initialize');
    assert.ok(init, 'initialize has its span too');
    const list = w.exporter.getFinishedSpans().find((s) => s.name === 'tools/list');
    assert.equal(list?.attributes[Attr.RESULT_COMPLETE], true);
  } finally {
    await w.close();
  }
});

test('an isError result is error.type tool_error, and its output is not copied into the span', async () => {
  const w = await world('enforce', policy);
  try {
    const out = await w.client.callTool({ name: 'fail', arguments: {} });
    assert.equal(out.isError, true);
    const span = toolSpans(w)[0];
    assert.equal(span?.attributes[OtelAttr.ERROR_TYPE], MCP_TOOL_ERROR);
    assert.equal(span?.attributes[Attr.RESULT_STATUS], 'error');
    assert.ok(!JSON.stringify(span?.attributes).includes('secret output'));
  } finally {
    await w.close();
  }
});

test('progress notifications pass through to the client unchanged', async () => {
  const w = await world('enforce', policy);
  try {
    const seen: number[] = [];
    await w.client.callTool({ name: 'slow', arguments: {} }, undefined, { onprogress: (p) => seen.push(p.progress) });
    assert.deepEqual(seen, [1, 2]);
  } finally {
    await w.close();
  }
});

test('a tool the client never listed is judged on the annotations the proxy reads itself', async () => {
  const w = await world('enforce', { tools: {} });
  try {
    // A fresh client that skips tools/list: the proxy asks the server, and the hints say destructive.
    const out = await w.client.callTool({ name: 'delete_accounts', arguments: { ids: ['a1'] } });
    assert.equal(out.isError, true);
    assert.deepEqual(w.deleted, []);
  } finally {
    await w.close();
  }
});

test('a tool with an outputSchema gets the review request under _meta (clients validate structuredContent)', async () => {
  const deleted: string[] = [];
  const server = new McpServer({ name: 's', version: '1' });
  server.registerTool(
    'purge',
    { inputSchema: {}, outputSchema: { purged: z.number() }, annotations: { destructiveHint: true } },
    async () => {
      deleted.push('all');
      return { content: [], structuredContent: { purged: 1 } };
    },
  );
  const [a, b] = InMemoryTransport.createLinkedPair();
  const [c, d] = InMemoryTransport.createLinkedPair();
  await server.connect(a);
  const provider = new TracerProvider();
  const relay = await startRelay({
    downstream: c,
    upstream: b,
    tracer: provider.getTracer('t'),
    policy: { tools: {} },
    guard: createGuardStep({ mode: 'enforce', evidenceWindow: 5 }),
    conversations: createConversations(),
    connectionConversationId: 'c',
    networkTransport: 'pipe',
    log: () => {},
  });
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(d);
  try {
    await client.listTools();
    const out = await client.callTool({ name: 'purge', arguments: {} });
    assert.equal(out.isError, true);
    assert.equal(out.structuredContent, undefined);
    assert.equal((out._meta?.[REVIEW_META_KEY] as { decision: string } | undefined)?.decision, 'refused');
    assert.deepEqual(deleted, []);
  } finally {
    await client.close();
    await relay.close();
  }
});
