/** What the AI SDK's mock model answers in the framework specs: tool calls, or a final text. */
const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
};

/** One step of the model: the tool calls it makes, each with its id, tool and input. */
export const toolCalls = (...cs: { id: string; name: string; input: unknown }[]) => ({
  content: cs.map((c) => ({
    type: 'tool-call' as const,
    toolCallId: c.id,
    toolName: c.name,
    input: JSON.stringify(c.input),
  })),
  finishReason: { unified: 'tool-calls' as const, raw: undefined },
  usage,
  warnings: [],
});

export const toolCall = (id: string, name: string, input: unknown) => toolCalls({ id, name, input });

/** The model's last step: a text, no tool call. */
export const say = (text: string) => ({
  content: [{ type: 'text' as const, text }],
  finishReason: { unified: 'stop' as const, raw: undefined },
  usage,
  warnings: [],
});
