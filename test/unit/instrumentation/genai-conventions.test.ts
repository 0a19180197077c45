/** The GenAI conventions (semantic-conventions-genai): execute_tool attributes and the invoke_agent span. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { context, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { GenAi, INVOKE_AGENT, OtelAttr } from '../../../contract/index.ts';
import { completeResult, createTooltrail } from '../../../instrumentation/index.ts';

// A registered provider with Node's context manager: that manager is what makes the tool spans children of the agent span.
const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
// SDK 3.x dropped register(): the global provider and Node's async context manager are set through the API.
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
after(() => provider.shutdown());
const tracing = { spans: async () => exporter.getFinishedSpans() };
const tt = createTooltrail({ tracerProvider: provider });

test('an execute_tool span carries gen_ai.tool.description when the tool declares one, and only then', async () => {
  const described = tt.readTool({ name: 'list_described', description: 'Lists the service accounts' }, () =>
    completeResult({ items: [] }),
  );
  const bare = tt.readTool('list_bare', () => completeResult({ items: [] }));
  const session = tt.session({ conversationId: 'conv-desc' });
  await described(session, {});
  await bare(session, {});
  const spans = await tracing.spans();
  const byName = (n: string) => spans.find((s) => s.name === `execute_tool ${n}`);
  assert.equal(byName('list_described')?.attributes[GenAi.TOOL_DESCRIPTION], 'Lists the service accounts');
  assert.equal(GenAi.TOOL_DESCRIPTION in (byName('list_bare')?.attributes ?? {}), false);
});

test('invokeAgent opens an INTERNAL invoke_agent {agent name} span whose children are the tool spans of the run', async () => {
  const session = tt.session({ conversationId: 'conv-agent', agentName: 'janitor', agentId: 'agent-7' });
  const list = tt.readTool('list_in_agent', () => completeResult({ items: [] }));
  const out = await tt.invokeAgent(
    session,
    async () => {
      await list(session, {});
      return 'done';
    },
    { providerName: 'openai', description: 'cleans up service accounts', version: '2.1.0' },
  );
  assert.equal(out, 'done');
  const spans = await tracing.spans();
  const agent = spans.find((s) => s.name === `${INVOKE_AGENT} janitor`);
  assert.ok(agent, 'an invoke_agent span');
  assert.equal(agent.kind, SpanKind.INTERNAL);
  assert.deepEqual(agent.attributes, {
    [GenAi.OPERATION_NAME]: INVOKE_AGENT,
    [GenAi.CONVERSATION_ID]: 'conv-agent',
    [GenAi.AGENT_NAME]: 'janitor',
    [GenAi.AGENT_ID]: 'agent-7',
    [GenAi.PROVIDER_NAME]: 'openai',
    [GenAi.AGENT_DESCRIPTION]: 'cleans up service accounts',
    [GenAi.AGENT_VERSION]: '2.1.0',
  });
  const tool = spans.find((s) => s.name === 'execute_tool list_in_agent');
  assert.equal(tool?.parentSpanContext?.spanId, agent.spanContext().spanId);
});

test('an agent without a name is an invoke_agent span; a thrown error is recorded on it and rethrown', async () => {
  const session = tt.session({ conversationId: 'conv-agent-fails' });
  await assert.rejects(
    tt.invokeAgent(session, () => {
      throw new RangeError('model refused');
    }),
    /model refused/,
  );
  const agent = (await tracing.spans()).find(
    (s) => s.name === INVOKE_AGENT && s.attributes[GenAi.CONVERSATION_ID] === 'conv-agent-fails',
  );
  assert.ok(agent, 'an invoke_agent span without a name');
  assert.equal(agent.status.code, SpanStatusCode.ERROR);
  assert.equal(agent.attributes[OtelAttr.ERROR_TYPE], 'RangeError');
  assert.ok(agent.events.some((e) => e.name === 'exception'));
});
