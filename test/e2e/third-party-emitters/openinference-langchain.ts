/** Emits the spans that OpenInference's LangChain.js instrumentation writes for a real tool loop, to a tooltrail collector. */
import { setSession } from '@arizeai/openinference-core';
import { LangChainInstrumentation } from '@arizeai/openinference-instrumentation-langchain';
import * as CallbackManagerModule from '@langchain/core/callbacks/manager';
import { awaitAllCallbacks } from '@langchain/core/callbacks/promises';
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { type RunnableConfig, RunnableLambda } from '@langchain/core/runnables';
import { tool } from '@langchain/core/tools';
import { context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { ExportResultCode } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { type ReadableSpan, SimpleSpanProcessor, type SpanExporter, TracerProvider } from '@opentelemetry/sdk-trace';
import { z } from 'zod';

export type OpenInferenceScenario = 'first-page' | 'complete';

export interface OpenInferenceLangChainOptions {
  /** Full OTLP/HTTP traces URL, ending in /v1/traces. */
  endpoint: string;
  /** Sent as `Authorization: Bearer <token>`. */
  token: string;
  scenario: OpenInferenceScenario;
  /** Lands on spans as `session.id` through OpenInference's context attributes. */
  session: string;
}

interface ScenarioScript {
  listResult: string;
  deleteTarget: string;
}

const SCENARIOS: Record<OpenInferenceScenario, ScenarioScript> = {
  'first-page': {
    listResult: JSON.stringify({ accounts: [{ id: 'acc-1' }, { id: 'acc-2' }], next_cursor: 'c2' }),
    deleteTarget: 'acc-9',
  },
  complete: {
    listResult: JSON.stringify({ accounts: [{ id: 'acc-1' }, { id: 'acc-2' }], has_more: false }),
    deleteTarget: 'acc-1',
  },
};

/** A chat model that answers from a fixed script, so the loop is deterministic and offline. */
class ScriptedChatModel extends BaseChatModel {
  private turn = 0;

  constructor(private readonly script: readonly AIMessage[]) {
    super({});
  }

  _llmType(): string {
    return 'scripted';
  }

  async _generate(_messages: BaseMessage[]): Promise<ChatResult> {
    const message = this.script[Math.min(this.turn, this.script.length - 1)];
    this.turn += 1;
    if (message === undefined) throw new Error('scripted chat model has an empty script');
    return { generations: [{ text: typeof message.content === 'string' ? message.content : '', message }] };
  }
}

function scriptFor(target: string): AIMessage[] {
  return [
    new AIMessage({
      content: '',
      tool_calls: [{ id: 'call_list_1', name: 'list_accounts', args: {}, type: 'tool_call' }],
    }),
    new AIMessage({
      content: '',
      tool_calls: [{ id: 'call_delete_1', name: 'delete_account', args: { account_id: target }, type: 'tool_call' }],
    }),
    new AIMessage({ content: `Deleted ${target}.` }),
  ];
}

/** Counts the spans the collector accepted, so the caller knows how many to expect downstream. */
class CountingExporter implements SpanExporter {
  count = 0;
  constructor(private readonly inner: SpanExporter) {}
  export(spans: ReadableSpan[], done: Parameters<SpanExporter['export']>[1]): void {
    this.inner.export(spans, (result) => {
      // Only spans the collector accepted count, so a rejected batch shows up as a short count.
      if (result.code === ExportResultCode.SUCCESS) this.count += spans.length;
      done(result);
    });
  }
  shutdown(): Promise<void> {
    return this.inner.shutdown();
  }
  forceFlush(): Promise<void> {
    return this.inner.forceFlush?.() ?? Promise.resolve();
  }
}

async function runToolLoop(script: ScenarioScript): Promise<void> {
  const listAccounts = tool(async (_input: { cursor?: string | undefined }) => script.listResult, {
    name: 'list_accounts',
    description: 'Lists accounts, one page at a time.',
    schema: z.object({ cursor: z.string().optional() }),
  });
  const deleteAccount = tool(async ({ account_id }: { account_id: string }) => `deleted ${account_id}`, {
    name: 'delete_account',
    description: 'Deletes one account by id.',
    schema: z.object({ account_id: z.string() }),
  });
  const model = new ScriptedChatModel(scriptFor(script.deleteTarget));

  // One parent run, so the model and tool spans share a trace the way an agent's would.
  const agent = RunnableLambda.from(async (prompt: string, config?: RunnableConfig): Promise<string> => {
    const messages: BaseMessage[] = [new HumanMessage(prompt)];
    for (let step = 0; step < 5; step += 1) {
      const reply = await model.invoke(messages, config);
      messages.push(reply);
      const calls = reply.tool_calls ?? [];
      if (calls.length === 0) return typeof reply.content === 'string' ? reply.content : '';
      for (const call of calls) {
        const toolCall = { ...call, type: 'tool_call' as const };
        const result: unknown =
          call.name === 'list_accounts'
            ? await listAccounts.invoke(toolCall, config)
            : await deleteAccount.invoke(toolCall, config);
        if (!(result instanceof ToolMessage)) throw new Error(`tool ${call.name} did not answer with a ToolMessage`);
        messages.push(result);
      }
    }
    throw new Error('scripted agent did not finish in 5 steps');
  }).withConfig({ runName: 'account_cleanup_agent' });

  await agent.invoke('Clean up the stale accounts.');
}

export async function runOpenInferenceLangChain(opts: OpenInferenceLangChainOptions): Promise<number> {
  const exporter = new CountingExporter(
    new OTLPTraceExporter({ url: opts.endpoint, headers: { Authorization: `Bearer ${opts.token}` } }),
  );
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': 'openinference-langchain-emitter' }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  // setSession travels in the OTel context; without a context manager it would not survive LangChain's awaits.
  const contextManager = new AsyncLocalStorageContextManager().enable();
  const ownsContextManager = context.setGlobalContextManager(contextManager);
  const instrumentation = new LangChainInstrumentation({ tracerProvider: provider });
  instrumentation.manuallyInstrument(CallbackManagerModule);
  try {
    await context.with(setSession(context.active(), { sessionId: opts.session }), () =>
      runToolLoop(SCENARIOS[opts.scenario]),
    );
    // LangChain may hand callbacks to a background queue; wait for them so every span has ended.
    await awaitAllCallbacks();
    await provider.forceFlush();
  } finally {
    instrumentation.disable();
    // disable() only undoes auto-instrumented modules; the manual patch on CallbackManager needs its private unpatch.
    instrumentation['unpatch'](CallbackManagerModule);
    await provider.shutdown();
    if (ownsContextManager) context.disable();
    else contextManager.disable();
  }
  return exporter.count;
}
