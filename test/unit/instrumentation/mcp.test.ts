/** The MCP wrapper against the real SDK: an McpServer and a Client linked in memory. */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SpanStatusCode } from '@opentelemetry/api';
import { z } from 'zod';
import { Attr, GenAi, MCP_TOOL_ERROR, OtelAttr } from '../../../contract/index.ts';
import type { McpCallOutcome } from '../../../instrumentation/index.ts';
import { completeResult, createTooltrail, instrumentMcpClient, partialResult } from '../../../instrumentation/index.ts';
import { memoryTracing } from './fixtures/otel.ts';

const SECRET = 'token-XYZ-secret';
const tracing = memoryTracing();
const server = new McpServer({ name: 'inventory', version: '1.0.0' });
const client = new Client({ name: 'agent', version: '1.0.0' });

server.registerTool(
  'list_unowned',
  { inputSchema: { team: z.string() }, annotations: { readOnlyHint: true } },
  async ({ team }) => {
    const result = partialResult({
      items: [{ id: `svc-${team}` }],
      reasons: ['MORE_PAGES_AVAILABLE'],
      continuation: { kind: 'next_cursor', cursor: 'c-2' },
      scope: { resource: 'service_accounts', snapshot: 'snap-3' },
    });
    return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result };
  },
);
server.registerTool('list_all_owned', { annotations: { readOnlyHint: true } }, async () => {
  const result = completeResult({ items: [{ id: 'svc-1' }], scope: { resource: 'service_accounts' } });
  return { content: [{ type: 'text', text: 'ok' }], structuredContent: result };
});
server.registerTool('list_plain', { annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: `[] ${SECRET}` }],
}));
server.registerTool('list_cursor', { annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: 'page' }],
  structuredContent: { accounts: [{ id: 'a' }, { id: 'b' }], nextCursor: 'n-2' },
}));
server.registerTool('list_null_cursor', { annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: 'page' }],
  structuredContent: { accounts: [], nextCursor: null },
}));
server.registerTool('broken', { annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: 'text', text: `failed for ${SECRET}` }],
  isError: true,
}));
let deletions = 0;
server.registerTool('delete_accounts', { inputSchema: { ids: z.array(z.string()) } }, async ({ ids }) => {
  deletions += ids.length;
  return { content: [{ type: 'text', text: 'deleted' }], structuredContent: completeResult({ items: ids }) };
});

const tt = createTooltrail({ tracerProvider: tracing.provider });
const mcp = instrumentMcpClient(tt, client);

before(async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  await client.connect(clientSide);
  await mcp.refreshToolEffects();
});

after(async () => {
  await client.close();
  await server.close();
  await tracing.shutdown();
});

async function lastSpan() {
  const span = (await tracing.spans()).at(-1);
  assert.ok(span);
  return span;
}

function asRead(out: McpCallOutcome) {
  assert.equal(out.effect, 'read');
  if (out.effect !== 'read') throw new Error('unreachable');
  return out;
}

test('each callTool becomes an execute_tool span with the contract from the structured result', async () => {
  const session = tt.session({ conversationId: 'mcp-1' });
  const out = asRead(
    await mcp.callTool(session, { name: 'list_unowned', arguments: { team: SECRET } }, { toolCallId: 'call-9' }),
  );
  assert.equal(out.recognized, 'contract');
  assert.equal(out.nextStep, 'continue_search');
  const span = await lastSpan();
  assert.equal(span.name, 'execute_tool list_unowned');
  assert.equal(span.attributes[GenAi.TOOL_CALL_ID], 'call-9');
  assert.equal(span.attributes[Attr.EFFECT], 'read');
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], false);
  assert.deepEqual(span.attributes[Attr.RESULT_REASONS], ['MORE_PAGES_AVAILABLE']);
  assert.equal(span.attributes[Attr.SCOPE_SNAPSHOT], 'snap-3');
  assert.equal(span.attributes[Attr.SESSION_SEQUENCE], 1);
  assert.equal(JSON.stringify(span.attributes).includes(SECRET), false, 'arguments are not recorded by default');
});

test('a server that says nothing about completeness is recorded as unknown', async () => {
  const out = asRead(await mcp.callTool(tt.session({ conversationId: 'mcp-2' }), { name: 'list_plain' }));
  assert.equal(out.recognized, 'unknown');
  const span = await lastSpan();
  assert.equal(span.attributes[Attr.RESULT_COMPLETE], false);
  assert.deepEqual(span.attributes[Attr.RESULT_REASONS], ['COMPLETENESS_UNKNOWN']);
  assert.equal(
    JSON.stringify({ a: span.attributes, e: span.events, s: span.status }).includes(SECRET),
    false,
    'the text content is not recorded',
  );
});

test('a nextCursor in the structured result means more pages', async () => {
  const out = asRead(await mcp.callTool(tt.session({ conversationId: 'mcp-3' }), { name: 'list_cursor' }));
  assert.equal(out.recognized, 'pagination');
  assert.deepEqual(out.result.completeness.continuation, { kind: 'next_cursor', cursor: 'n-2' });
  const span = await lastSpan();
  assert.deepEqual(span.attributes[Attr.RESULT_REASONS], ['MORE_PAGES_AVAILABLE']);
  assert.equal(span.attributes[Attr.RESULT_ITEM_COUNT], 2);
});

test('a null nextCursor is not proof of the end: completeness unknown', async () => {
  const out = asRead(await mcp.callTool(tt.session({ conversationId: 'mcp-4' }), { name: 'list_null_cursor' }));
  assert.equal(out.complete, false);
  assert.deepEqual(
    out.result.completeness.reasons.map((r) => r.code),
    ['COMPLETENESS_UNKNOWN'],
  );
});

test('an isError result is a span error without copying the tool output', async () => {
  await mcp.callTool(tt.session({ conversationId: 'mcp-5' }), { name: 'broken' });
  const span = await lastSpan();
  assert.equal(span.status.code, SpanStatusCode.ERROR);
  assert.equal(span.attributes[OtelAttr.ERROR_TYPE], MCP_TOOL_ERROR);
  assert.equal(span.attributes[Attr.RESULT_STATUS], 'error');
  assert.equal(JSON.stringify({ a: span.attributes, e: span.events, s: span.status }).includes(SECRET), false);
});

test('a tool not annotated read-only is a mutation: refused without a plan, guarded with one', async () => {
  assert.equal(mcp.effectOf('delete_accounts'), 'mutation');
  assert.equal(mcp.effectOf('never_listed'), 'mutation');
  const session = tt.session({ conversationId: 'mcp-6' });
  const planless = await mcp.callTool(session, { name: 'delete_accounts', arguments: { ids: ['svc-1'] } });
  assert.equal(planless.effect === 'mutation' && planless.decision, 'refused');
  assert.deepEqual(planless.effect === 'mutation' && planless.findings.map((f) => f.code), ['NO_PLAN']);
  const span = await lastSpan();
  assert.equal(span.attributes[Attr.GUARD_DECISION], 'refused');
  assert.equal(Attr.MUTATION_BASIS in span.attributes, false, 'no basis was declared, none is invented');
  assert.equal(deletions, 0);

  const incomplete = asRead(await mcp.callTool(session, { name: 'list_unowned', arguments: { team: 'a' } }));
  const refused = await mcp.callTool(
    session,
    { name: 'delete_accounts', arguments: { ids: ['svc-a'] } },
    { plan: { basis: 'presence', targets: ['svc-a'], evidence: [incomplete] } },
  );
  assert.equal(refused.effect === 'mutation' && refused.decision, 'refused');
  assert.equal(deletions, 0);

  const complete = asRead(await mcp.callTool(session, { name: 'list_all_owned' }));
  const allowed = await mcp.callTool(
    session,
    { name: 'delete_accounts', arguments: { ids: ['svc-1'] } },
    { plan: { basis: 'presence', targets: ['svc-1'], evidence: [complete] } },
  );
  assert.equal(allowed.effect === 'mutation' && allowed.decision, 'allowed');
  assert.equal(deletions, 1);
  const last = await lastSpan();
  assert.deepEqual(last.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [complete.callId]);
});

test('an MCP mutation called with the guard off runs and its span records no decision', async () => {
  const session = tt.session({ conversationId: 'mcp-guard-off' });
  const incomplete = asRead(await mcp.callTool(session, { name: 'list_unowned', arguments: { team: 'b' } }));
  const before = deletions;
  const out = await mcp.callTool(
    session,
    { name: 'delete_accounts', arguments: { ids: ['svc-b'] } },
    { plan: { basis: 'presence', targets: ['svc-b'], evidence: [incomplete] }, guard: 'off' },
  );
  assert.equal(out.effect === 'mutation' && out.decision, 'not_checked');
  assert.equal(deletions, before + 1);
  const span = await lastSpan();
  assert.equal(Attr.GUARD_DECISION in span.attributes, false);
  assert.deepEqual(span.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], [incomplete.callId]);
});

test('the caller can declare a tool effect over the annotations', async () => {
  const declared = instrumentMcpClient(tt, client, { tools: { delete_accounts: { effect: 'read' } } });
  assert.equal(declared.effectOf('delete_accounts'), 'read');
  assert.equal(declared.effectOf('list_plain'), 'mutation', 'annotations are per wrapper: this one never listed');
});

test('an MCP mutation called without a plan is judged from its tool policy and the session reads', async () => {
  const guarded = instrumentMcpClient(tt, client, {
    tools: { delete_accounts: { policy: { resource: 'service_accounts', basis: 'presence', targets: '/ids' } } },
  });
  await guarded.refreshToolEffects();
  const session = tt.session({ conversationId: 'mcp-policy' });
  await guarded.callTool(session, { name: 'list_all_owned' });
  const before = deletions;
  const outside = await guarded.callTool(session, { name: 'delete_accounts', arguments: { ids: ['svc-9'] } });
  assert.equal(outside.effect, 'mutation');
  if (outside.effect !== 'mutation') throw new Error('unreachable');
  assert.equal(outside.decision, 'refused');
  assert.deepEqual(
    outside.findings.map((f) => f.code),
    ['TARGETS_NOT_IN_EVIDENCE'],
  );
  const inside = await guarded.callTool(session, { name: 'delete_accounts', arguments: { ids: ['svc-1'] } });
  assert.equal(inside.effect === 'mutation' && inside.decision, 'allowed');
  assert.equal(deletions, before + 1);
});
