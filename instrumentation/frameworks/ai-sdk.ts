/**
 * The Vercel AI SDK (`ai`): wraps `tool()` definitions so that each execution inside the SDK's tool loop is an
 * `execute_tool` span with the contract, reads land in the session's ledger, and a mutation the guard stops does not
 * run: the model receives the structured refusal as the tool's output.
 */
import type { Tool, ToolExecutionOptions, ToolSet } from 'ai';
import type { Session, Tooltrail } from '../index.ts';
import { bridgeTool, type FrameworkToolPolicy } from './tool-bridge.ts';

export type AiSdkToolPolicies<TOOLS extends ToolSet> = { [K in keyof TOOLS]: FrameworkToolPolicy };

/** The same tools, each execution instrumented and, for mutations, guarded on `session`'s reads. */
export function instrumentAiSdkTools<TOOLS extends ToolSet>(
  tt: Tooltrail,
  session: Session,
  tools: TOOLS,
  policies: AiSdkToolPolicies<TOOLS>,
): TOOLS {
  const out: Record<string, Tool> = {};
  for (const [name, original] of Object.entries(tools) as [string, Tool][]) {
    const declared = policies[name];
    if (!declared) throw new Error(`tooltrail: tool ${name} has no policy (declare it a read or a mutation)`);
    const execute = original.execute;
    // Provider-executed tools never run here: nothing to wrap.
    if (!execute) {
      out[name] = original;
      continue;
    }
    const bridged = bridgeTool(tt, name, declared);
    out[name] = {
      ...original,
      execute: (input: unknown, options: ToolExecutionOptions<unknown>) =>
        bridged.call(session, input, options.toolCallId, () => lastValue(execute(input, options))),
    } as Tool;
  }
  return out as TOOLS;
}

/** A tool may stream preliminary outputs (an async iterable); its result is the last one. */
async function lastValue(result: unknown): Promise<unknown> {
  if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) {
    let last: unknown;
    for await (const v of result as AsyncIterable<unknown>) last = v;
    return last;
  }
  return await result;
}
