/**
 * A model that pages by hand, in the Vercel AI SDK's own tool loop (generateText with stopWhen) and the OpenAI Agents
 * SDK's runner: it reads the cursor from each page's output and calls the list again with it, then deletes accounts
 * it saw on the first and last pages and marks the control compliant. Read to the end, both run; stopped one page
 * short or across a snapshot change, both are refused and the model's next prompt holds why and how to recover.
 * Run under Node 22 (the SDKs' engines) by frameworks.test.ts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Agent, tool as agentTool, run, setTracingDisabled } from '@openai/agents';
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents/testing';
import { generateText, stepCountIs, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { z } from 'zod';
import { instrumentAiSdkTools } from '../../../instrumentation/frameworks/ai-sdk.ts';
import { instrumentAgentTools } from '../../../instrumentation/frameworks/openai-agents.ts';
import type { FrameworkToolPolicy } from '../../../instrumentation/frameworks/tool-bridge.ts';
import { createTooltrail } from '../../../instrumentation/index.ts';
import { PagingInventory, pageEnvelope, RESOURCE } from '../../../testkit/paging-inventory.ts';
import { memoryTracing } from '../../unit/instrumentation/fixtures/otel.ts';
import { toolCalls as calls, say } from './mock-model.ts';

setTracingDisabled(true);

const POLICIES: Record<'list_unowned_accounts' | 'delete_accounts' | 'mark_control_compliant', FrameworkToolPolicy> = {
  list_unowned_accounts: { effect: 'read', policy: { resource: RESOURCE } },
  delete_accounts: { effect: 'mutation', policy: { resource: RESOURCE, basis: 'presence', targets: '/ids' } },
  mark_control_compliant: { effect: 'mutation', policy: { resource: RESOURCE, basis: 'absence' } },
};

type Prompt = { role: string; content: unknown }[];

/** The outputs of every tool call in the prompt so far, by call id. */
function toolOutputs(prompt: Prompt): Map<string, unknown> {
  const out = new Map<string, unknown>();
  for (const message of prompt) {
    if (message.role !== 'tool') continue;
    for (const part of message.content as {
      type: string;
      toolCallId: string;
      output: { type: string; value: unknown };
    }[]) {
      if (part.type === 'tool-result')
        out.set(part.toolCallId, part.output.type === 'json' ? part.output.value : part.output);
    }
  }
  return out;
}

interface Page {
  completeness: { complete: boolean; continuation: { kind: string; cursor?: string } };
}

/**
 * A scripted model that pages by hand: it reads the cursor from the last page it got and asks for the next, up to
 * `pages` pages, then acts, then reads what the actions returned and stops.
 */
function pagingModel(pages: number, onPage?: (n: number) => void) {
  let listed = 0;
  return new MockLanguageModelV4({
    doGenerate: async (options) => {
      const outputs = toolOutputs(options.prompt as Prompt);
      const last = outputs.get(`list-${listed}`) as Page | undefined;
      const cursor = last?.completeness.continuation.cursor;
      if (listed === 0 || (listed < pages && cursor !== undefined)) {
        listed += 1;
        onPage?.(listed);
        return calls({
          id: `list-${listed}`,
          name: 'list_unowned_accounts',
          input: cursor === undefined ? {} : { cursor },
        });
      }
      if (!outputs.has('delete')) {
        return calls(
          { id: 'delete', name: 'delete_accounts', input: { ids: ['sa-1', 'sa-5'] } },
          { id: 'mark', name: 'mark_control_compliant', input: { control: 'no-unowned-accounts' } },
        );
      }
      return say('done');
    },
  });
}

async function aiSdkAgent(pages: number, inventory = new PagingInventory(), onPage?: (n: number) => void) {
  const tracing = memoryTracing();
  const tt = createTooltrail({ tracerProvider: tracing.provider });
  const session = tt.session({ conversationId: `conv-paging-${pages}`, agentName: 'janitor' });
  const ran: string[] = [];
  const tools = instrumentAiSdkTools(
    tt,
    session,
    {
      list_unowned_accounts: tool({
        description: 'Unowned service accounts, one page at a time; pass the cursor of the previous page',
        inputSchema: z.object({ cursor: z.string().optional() }),
        execute: async ({ cursor }) => pageEnvelope(inventory.page(cursor)),
      }),
      delete_accounts: tool({
        description: 'Delete service accounts',
        inputSchema: z.object({ ids: z.array(z.string()) }),
        execute: async ({ ids }) => {
          ran.push(`delete ${ids.join(',')}`);
          return { deleted: ids };
        },
      }),
      mark_control_compliant: tool({
        description: 'Mark a control compliant',
        inputSchema: z.object({ control: z.string() }),
        execute: async ({ control }) => {
          ran.push(`mark ${control}`);
          return { marked: control };
        },
      }),
    },
    POLICIES,
  );
  const model = pagingModel(pages, onPage);
  await generateText({ model, tools, prompt: 'Remove unowned service accounts', stopWhen: stepCountIs(10) });
  await tracing.shutdown();
  const outputs = toolOutputs((model.doGenerateCalls.at(-1)?.prompt ?? []) as Prompt);
  return { ran, outputs };
}

interface Refusal {
  tooltrail_guard: string;
  findings: { code: string; message: string }[];
  options: { kind: string; cursor?: string }[];
}

test('AI SDK: a model that follows every cursor to the end deletes accounts of the first and last pages and marks the control', async () => {
  const { ran, outputs } = await aiSdkAgent(3);
  assert.deepEqual(ran, ['delete sa-1,sa-5', 'mark no-unowned-accounts']);
  const last = outputs.get('list-3') as Page & { traversal?: { page: number; pages: number; complete: boolean } };
  assert.deepEqual(last.traversal && { page: last.traversal.page, complete: last.traversal.complete }, {
    page: 3,
    complete: true,
  });
});

test('AI SDK: stopped one page short, both are refused and the model is offered to read the remaining pages', async () => {
  const { ran, outputs } = await aiSdkAgent(2);
  assert.deepEqual(ran, []);
  const next = (outputs.get('list-2') as Page).completeness.continuation.cursor;
  for (const id of ['delete', 'mark']) {
    const refusal = outputs.get(id) as Refusal;
    assert.equal(refusal.tooltrail_guard, 'refused', JSON.stringify(refusal));
    assert.ok(
      refusal.findings.some((f) => /stopped at page 2/.test(f.message)),
      JSON.stringify(refusal.findings),
    );
    assert.equal(refusal.options.find((o) => o.kind === 'read_all_pages')?.cursor, next);
  }
});

test('AI SDK: a snapshot that changed between two pages gets both refused, with a read from the first page offered', async () => {
  const inventory = new PagingInventory();
  const { ran, outputs } = await aiSdkAgent(3, inventory, (n) => {
    if (n === 2) inventory.reindex('inv-78');
  });
  assert.deepEqual(ran, []);
  const refusal = outputs.get('mark') as Refusal;
  assert.ok(
    refusal.findings.some((f) => /SNAPSHOT_CHANGED/.test(f.message)),
    JSON.stringify(refusal.findings),
  );
  assert.ok(refusal.options.some((o) => o.kind === 'read_again'));
});

test('OpenAI Agents: a scripted model that follows every cursor to the end deletes what it saw on any page', async () => {
  const inventory = new PagingInventory();
  const c2 = inventory.page().next;
  const c3 = inventory.page(c2).next;
  const deleted: string[][] = [];
  const tt = createTooltrail();
  const session = tt.session({ conversationId: 'conv-agents-paging', agentName: 'janitor' });
  const tools = instrumentAgentTools(
    tt,
    session,
    [
      agentTool({
        name: 'list_unowned_accounts',
        description: 'Unowned service accounts, one page at a time',
        parameters: z.object({ cursor: z.string().nullable() }),
        execute: async ({ cursor }) => pageEnvelope(inventory.page(cursor ?? undefined)),
      }),
      agentTool({
        name: 'delete_accounts',
        description: 'Delete service accounts',
        parameters: z.object({ ids: z.array(z.string()) }),
        execute: async ({ ids }) => {
          deleted.push(ids);
          return { deleted: ids };
        },
      }),
    ],
    { list_unowned_accounts: POLICIES.list_unowned_accounts, delete_accounts: POLICIES.delete_accounts },
  );
  const model = new ScriptedModel([
    [functionCall('list_unowned_accounts', { cursor: null }, { callId: 'list-1' })],
    [functionCall('list_unowned_accounts', { cursor: c2 }, { callId: 'list-2' })],
    [functionCall('list_unowned_accounts', { cursor: c3 }, { callId: 'list-3' })],
    [functionCall('delete_accounts', { ids: ['sa-2', 'sa-5'] }, { callId: 'delete' })],
    [assistantMessage('done')],
  ]);
  const agent = new Agent({ name: 'janitor', instructions: 'Remove unowned accounts', model, tools });
  await run(agent, 'Remove unowned service accounts');
  assert.deepEqual(deleted, [['sa-2', 'sa-5']]);
});
