/**
 * The Vercel AI SDK's own tool loop (generateText with stopWhen), driven by its `ai/test` mock model: the model reads
 * a list that came back incomplete, then calls a destructive tool; the guard stops it and the model's next prompt
 * holds the structured refusal. Run under Node 22 (the SDK's engines) by frameworks.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { Attr, GenAi } from '../../../contract/index.ts';
import { instrumentAiSdkTools } from '../../../instrumentation/frameworks/ai-sdk.ts';
import { createTooltrail } from '../../../instrumentation/index.ts';
import { memoryTracing } from '../../unit/instrumentation/fixtures/otel.ts';
import { type AccountStore, accountStore, disable, POLICIES } from './accounts.ts';
import { toolCall as call, say } from './mock-model.ts';

async function runAgent(store: AccountStore) {
  const tracing = memoryTracing();
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: 'conv-ai-sdk', agentName: 'janitor' });
  const tools = instrumentAiSdkTools(
    tt,
    session,
    {
      list_unowned_accounts: tool({
        description: 'Service accounts without an owner',
        inputSchema: z.object({}),
        execute: async () => store.listResponse,
      }),
      disable_accounts: tool({
        description: 'Disable service accounts',
        inputSchema: z.object({ ids: z.array(z.string()) }),
        execute: async ({ ids }) => disable(store, ids),
      }),
    },
    POLICIES,
  );
  const model = new MockLanguageModelV4({
    doGenerate: [
      call('call-1', 'list_unowned_accounts', {}),
      call('call-2', 'disable_accounts', { ids: ['svc-184'] }),
      say('done'),
    ],
  });
  const result = await generateText({
    model,
    tools,
    prompt: 'Disable unowned service accounts',
    stopWhen: stepCountIs(5),
  });
  const spans = await tracing.spans();
  await tracing.shutdown();
  return { result, model, spans };
}

/** The output the model was sent for a tool call, read from its next prompt. */
function toolOutputInPrompt(model: MockLanguageModelV4, callIndex: number, toolCallId: string): unknown {
  const prompt = model.doGenerateCalls[callIndex]?.prompt ?? [];
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result' && part.toolCallId === toolCallId) {
        return part.output.type === 'json' ? part.output.value : part.output;
      }
    }
  }
  assert.fail(`no tool result for ${toolCallId} in prompt ${callIndex}: ${JSON.stringify(prompt)}`);
}

test('AI SDK: a read incomplete by an unreachable region makes the guard refuse the disable; the model receives the refusal', async () => {
  const store = accountStore(true);
  const { model, spans } = await runAgent(store);

  assert.equal(model.doGenerateCalls.length, 3, 'the SDK ran its loop to the final answer');
  assert.deepEqual(store.disableCalls, [], 'the destructive tool never ran');
  assert.ok(store.enabled.has('svc-184'));

  const read = toolOutputInPrompt(model, 1, 'call-1') as {
    completeness: { complete: boolean; reasons: { code: string }[] };
  };
  assert.equal(read.completeness.complete, false, 'the model saw the read was incomplete');
  assert.deepEqual(
    read.completeness.reasons.map((r) => r.code),
    ['SOURCE_UNAVAILABLE'],
  );

  const refusal = toolOutputInPrompt(model, 2, 'call-2') as {
    tooltrail_guard: string;
    findings: { code: string }[];
    incomplete_reasons: { code: string }[];
  };
  assert.equal(refusal.tooltrail_guard, 'refused');
  assert.ok(
    refusal.findings.some((f) => f.code === 'EVIDENCE_INCOMPLETE'),
    JSON.stringify(refusal),
  );
  assert.deepEqual(
    refusal.incomplete_reasons.map((r) => r.code),
    ['SOURCE_UNAVAILABLE'],
  );

  const byName = new Map(spans.map((s) => [s.attributes[GenAi.TOOL_NAME], s]));
  const readSpan = byName.get('list_unowned_accounts');
  const mutationSpan = byName.get('disable_accounts');
  assert.equal(readSpan?.attributes[GenAi.TOOL_CALL_ID], 'call-1');
  assert.equal(readSpan?.attributes[Attr.RESULT_COMPLETE], false);
  assert.equal(readSpan?.attributes[GenAi.CONVERSATION_ID], 'conv-ai-sdk');
  assert.equal(mutationSpan?.attributes[GenAi.TOOL_CALL_ID], 'call-2');
  assert.equal(mutationSpan?.attributes[Attr.GUARD_DECISION], 'refused');
});

test('AI SDK: after a complete read, the same disable is allowed and runs (the guard is not a blanket refusal)', async () => {
  const store = accountStore(false);
  const { model, spans } = await runAgent(store);
  assert.deepEqual(store.disableCalls, [['svc-184']]);
  assert.deepEqual(toolOutputInPrompt(model, 2, 'call-2'), { disabled: ['svc-184'] });
  const mutationSpan = spans.find((s) => s.attributes[GenAi.TOOL_NAME] === 'disable_accounts');
  assert.equal(mutationSpan?.attributes[Attr.GUARD_DECISION], 'allowed');
});
