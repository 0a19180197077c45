/**
 * The OpenAI Agents SDK's own runner (`run(agent)`), driven by its `@openai/agents/testing` ScriptedModel (no
 * network): the model reads a list that came back incomplete, then calls a destructive function tool; the guard
 * stops it and the model's next request holds the structured refusal. Run under Node 22 by frameworks.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, run, setTracingDisabled, tool } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { z } from 'zod';
import { Attr, GenAi } from '../../../contract/index.ts';
import { instrumentAgentTools } from '../../../instrumentation/frameworks/openai-agents.ts';
import { createTooltrail } from '../../../instrumentation/index.ts';
import { memoryTracing } from '../../unit/instrumentation/fixtures/otel.ts';
import { type AccountStore, accountStore, disable, POLICIES } from './accounts.ts';

// The SDK's own tracing exports to OpenAI's backend: off, so that nothing leaves the machine.
setTracingDisabled(true);

async function runAgent(store: AccountStore) {
  const tracing = memoryTracing();
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: 'conv-agents', agentName: 'janitor' });
  const tools = instrumentAgentTools(
    tt,
    session,
    [
      tool({
        name: 'list_unowned_accounts',
        description: 'Service accounts without an owner',
        parameters: z.object({}),
        execute: async () => store.listResponse,
      }),
      tool({
        name: 'disable_accounts',
        description: 'Disable service accounts',
        parameters: z.object({ ids: z.array(z.string()) }),
        execute: async ({ ids }) => disable(store, ids),
      }),
    ],
    POLICIES,
  );
  const model = new ScriptedModel([
    [functionCall('list_unowned_accounts', {}, { callId: 'call-1' })],
    [functionCall('disable_accounts', { ids: ['svc-184'] }, { callId: 'call-2' })],
    [assistantMessage('done')],
  ]);
  const agent = new Agent({ name: 'janitor', instructions: 'Disable unowned service accounts', model, tools });
  const result = await run(agent, 'Disable unowned service accounts');
  const spans = await tracing.spans();
  await tracing.shutdown();
  return { result, model, spans };
}

/** The output the runner sent the model for a function call, read from the next request's input. */
function toolOutputInRequest(model: ScriptedModel, callIndex: number, callId: string): unknown {
  const input = model.calls[callIndex]?.request.input;
  const items = Array.isArray(input) ? input : [];
  for (const item of items as { type?: string; callId?: string; output?: unknown }[]) {
    if (item.type !== 'function_call_result' || item.callId !== callId) continue;
    const out = item.output as string | { type: string; text?: string };
    const text = typeof out === 'string' ? out : out.text;
    return JSON.parse(text ?? 'null');
  }
  assert.fail(`no function_call_result for ${callId} in request ${callIndex}: ${JSON.stringify(input)}`);
}

test('Agents SDK: a read incomplete by an unreachable region makes the guard refuse the disable; the model receives the refusal', async () => {
  const store = accountStore(true);
  const { result, model, spans } = await runAgent(store);

  assert.equal(result.finalOutput, 'done');
  assert.equal(model.calls.length, 3, 'the runner looped to the final answer');
  assert.deepEqual(store.disableCalls, [], 'the destructive tool never ran');

  const read = toolOutputInRequest(model, 1, 'call-1') as {
    completeness: { complete: boolean; reasons: { code: string }[] };
  };
  assert.equal(read.completeness.complete, false);
  assert.deepEqual(
    read.completeness.reasons.map((r) => r.code),
    ['SOURCE_UNAVAILABLE'],
  );

  const refusal = toolOutputInRequest(model, 2, 'call-2') as { tooltrail_guard: string; findings: { code: string }[] };
  assert.equal(refusal.tooltrail_guard, 'refused');
  assert.ok(
    refusal.findings.some((f) => f.code === 'EVIDENCE_INCOMPLETE'),
    JSON.stringify(refusal),
  );

  const mutationSpan = spans.find((s) => s.attributes[GenAi.TOOL_NAME] === 'disable_accounts');
  assert.equal(mutationSpan?.attributes[GenAi.TOOL_CALL_ID], 'call-2');
  assert.equal(mutationSpan?.attributes[Attr.GUARD_DECISION], 'refused');
  const readSpan = spans.find((s) => s.attributes[GenAi.TOOL_NAME] === 'list_unowned_accounts');
  assert.equal(readSpan?.attributes[Attr.RESULT_COMPLETE], false);
});

test('Agents SDK: after a complete read, the same disable is allowed and runs (the guard is not a blanket refusal)', async () => {
  const store = accountStore(false);
  const { model, spans } = await runAgent(store);
  assert.deepEqual(store.disableCalls, [['svc-184']]);
  assert.deepEqual(toolOutputInRequest(model, 2, 'call-2'), { disabled: ['svc-184'] });
  const mutationSpan = spans.find((s) => s.attributes[GenAi.TOOL_NAME] === 'disable_accounts');
  assert.equal(mutationSpan?.attributes[Attr.GUARD_DECISION], 'allowed');
});
