/**
 * The demo's realistic instrumented agent: a service-account cleanup agent (naive or careful) acting on the
 * in-process demo world through tooltrail, and a terminal renderer of what it did.
 */
export type { AgentContext } from './agent-context.ts';
export { CAREFUL_LIST_PAGE_SIZE, CAREFUL_SEARCH_PAGE_SIZE, carefulCleanup } from './careful-cleanup.ts';
export type { MutationCall, Mutator } from './mutator.ts';
export { NAIVE_LIST_PAGE_SIZE, NAIVE_SEARCH_PAGE_SIZE, naiveCleanup } from './naive-cleanup.ts';
export type { FormatOptions } from './render.ts';
export { formatAgentRun, shouldUseColor } from './render.ts';
export type { RunCleanupAgentOptions } from './run-cleanup-agent.ts';
export { DEFAULT_AGENT_NAME, DEFAULT_ROLES, runCarefulCleanupAgent, runCleanupAgent } from './run-cleanup-agent.ts';
export type {
  AgentRunSummary,
  EvidenceLink,
  MutationDetail,
  MutationRef,
  ResultSummary,
  Strategy,
  ToolCallSummary,
} from './run-summary.ts';
export type { CleanupTools, GuardMode, ListAllArgs, SearchAllArgs } from './toolset.ts';
export { COLLECTOR_BUDGET, createCleanupTools } from './toolset.ts';
