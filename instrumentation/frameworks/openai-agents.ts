/**
 * The OpenAI Agents SDK for JavaScript (`@openai/agents`): wraps function tools so that each invocation by the
 * runner is an `execute_tool` span with the contract, reads land in the session's ledger, and a mutation the guard
 * stops does not run: the model receives the structured refusal as the tool's output.
 */
import type { FunctionTool, RunContext } from '@openai/agents';
import type { Session, Tooltrail } from '../index.ts';
import { bridgeTool, type FrameworkToolPolicy } from './tool-bridge.ts';

/** The session of a run: one for the agent's conversation, or derived from the run's context. */
export type SessionOf<C> = Session | ((runContext: RunContext<C>) => Session);

export function instrumentAgentTools<C, T extends FunctionTool<C, never, unknown>>(
  tt: Tooltrail,
  session: SessionOf<C>,
  tools: readonly T[],
  policies: Record<string, FrameworkToolPolicy>,
): T[] {
  return tools.map((original) => {
    const declared = policies[original.name];
    if (!declared) throw new Error(`tooltrail: tool ${original.name} has no policy (declare it a read or a mutation)`);
    const bridged = bridgeTool(tt, original.name, declared);
    const invoke: T['invoke'] = async (runContext, input, details) => {
      const s = typeof session === 'function' ? session(runContext) : session;
      const value = await bridged.call(s, parseArguments(input), details?.toolCall?.callId, () =>
        original.invoke(runContext, input, details),
      );
      // The runner sends the model a string; an object would be stringified without our control of its shape.
      return typeof value === 'string' ? value : JSON.stringify(value);
    };
    return { ...original, invoke };
  });
}

/** The model's arguments as the guard reads targets from them; unparsable stays a string (targets then unreadable). */
function parseArguments(input: string): unknown {
  try {
    return JSON.parse(input);
  } catch {
    return input;
  }
}
