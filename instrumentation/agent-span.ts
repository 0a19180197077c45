/**
 * The `invoke_agent` span the library opens around an agent's run (GenAI conventions, "invoke agent internal span"):
 * the tool spans of the run become its children, so a trace shows which agent invocation each call belonged to.
 */
import type { Attributes, Tracer } from '@opentelemetry/api';
import { SpanKind } from '@opentelemetry/api';
import { agentSpanName, GenAi, INVOKE_AGENT } from '../contract/index.ts';
import type { Session } from './session.ts';
import { recordThrown } from './span-recording.ts';

/** What the application knows about the agent beyond the session (each recorded when given). */
export interface AgentInvocation {
  /** `gen_ai.provider.name` (`openai`, `anthropic`, ...): required by the conventions, known only to the app. */
  providerName?: string;
  /** `gen_ai.agent.description`. */
  description?: string;
  /** `gen_ai.agent.version`. */
  version?: string;
}

export function runAgent<R>(
  tracer: Tracer,
  session: Session,
  invocation: AgentInvocation,
  fn: () => Promise<R> | R,
): Promise<R> {
  const attributes: Attributes = {
    [GenAi.OPERATION_NAME]: INVOKE_AGENT,
    [GenAi.CONVERSATION_ID]: session.conversationId,
  };
  if (session.agentName !== undefined) attributes[GenAi.AGENT_NAME] = session.agentName;
  if (session.agentId !== undefined) attributes[GenAi.AGENT_ID] = session.agentId;
  if (invocation.providerName !== undefined) attributes[GenAi.PROVIDER_NAME] = invocation.providerName;
  if (invocation.description !== undefined) attributes[GenAi.AGENT_DESCRIPTION] = invocation.description;
  if (invocation.version !== undefined) attributes[GenAi.AGENT_VERSION] = invocation.version;
  return tracer.startActiveSpan(
    agentSpanName(session.agentName),
    { kind: SpanKind.INTERNAL, attributes },
    async (span) => {
      try {
        return await fn();
      } catch (err) {
        // Recording errors the OpenTelemetry way: exception event, error status, `error.type`; the caller still sees it.
        recordThrown(span, err);
        throw err;
      } finally {
        span.end();
      }
    },
  );
}
