/** With a registered SDK (global provider and context manager), tool spans nest the work done inside the tool. */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { context, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { completeResult, createTooltrail } from '../../../instrumentation/index.ts';

const exporter = new InMemorySpanExporter();
const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
// SDK 3.x dropped register(): the global provider and Node's async context manager are set through the API.
trace.setGlobalTracerProvider(provider);
context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
after(() => provider.shutdown());

test('uses the globally registered provider when none is given', async () => {
  const tt = createTooltrail();
  const read = tt.readTool('global_read', () => completeResult({ items: [] }));
  await read(tt.session({ conversationId: 'g' }), {});
  assert.ok(exporter.getFinishedSpans().some((s) => s.name === 'execute_tool global_read'));
});

test('spans opened inside a tool are children of its execute_tool span', async () => {
  const tt = createTooltrail();
  const inner = trace.getTracer('http-client');
  const read = tt.readTool('nested_read', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    inner.startSpan('GET /accounts').end();
    return completeResult({ items: [] });
  });
  const outer = trace.getTracer('agent');
  await outer.startActiveSpan('agent turn', async (turn) => {
    await read(tt.session({ conversationId: 'n' }), {});
    turn.end();
  });
  const spans = exporter.getFinishedSpans();
  const tool = spans.find((s) => s.name === 'execute_tool nested_read');
  const http = spans.find((s) => s.name === 'GET /accounts');
  const turn = spans.find((s) => s.name === 'agent turn');
  assert.ok(tool && http && turn);
  assert.equal(http.parentSpanContext?.spanId, tool.spanContext().spanId);
  assert.equal(tool.parentSpanContext?.spanId, turn.spanContext().spanId);
});
