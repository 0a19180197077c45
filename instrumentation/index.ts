/**
 * @tooltrail/instrumentation: completeness contracts on OpenTelemetry tool spans, an all-pages collector that
 * discloses its own limits, and a mutation guard that refuses to act on incomplete evidence.
 */

export type {
  Continuation,
  Pagination,
  Reason,
  Scope,
  ToolResult,
  ToolResultInput,
  TraversalBreak,
  Warning,
} from '../contract/index.ts';
export { ToolResultSchema } from '../contract/index.ts';
export type {
  AdapterOptions,
  AwsOptions,
  CompletenessAdapter,
  ElasticsearchOptions,
  GoogleOptions,
  LinkHeaderOptions,
  RelayOptions,
  SlackOptions,
  SqlOptions,
} from './adapters/index.ts';
export {
  awsPagination,
  elasticsearchSearch,
  GITHUB_SEARCH_RESULT_CAP,
  githubSearch,
  googleList,
  kubernetesList,
  linkHeader,
  notionList,
  parseLinkHeader,
  probeLimit,
  relayConnection,
  slackCursor,
  sqlResult,
  stripeList,
  withOptions,
} from './adapters/index.ts';
export type { AgentInvocation } from './agent-span.ts';
export type { GuardMode, TooltrailConfig } from './config.ts';
export { defaultConfig, GUARD_MODES } from './config.ts';
export type { CursorSelector, PageParams } from './cursor.ts';
export { CURSOR_ARGUMENT_NAMES } from './cursor.ts';
export type {
  BlockingWarning,
  EvidenceRef,
  EvidenceSummary,
  GuardFinding,
  GuardFindingCode,
  GuardVerdict,
  MutationPlan,
  RecoveryOption,
  ReviewRequest,
} from './guard.ts';
export { contractJsonSchema } from './json-schema.ts';
export type {
  InstrumentedMcpClient,
  InstrumentMcpOptions,
  McpArguments,
  McpCallOptions,
  McpCallOutcome,
  McpToolPolicy,
  ToolListing,
} from './mcp.ts';
export { instrumentMcpClient, interpretMcpResult } from './mcp.ts';
export type { CollectAllPagesOptions, PageRequest, PagerBudget, PagerClock } from './pager.ts';
export { collectAllPages, defaultPagerBudget, SourceError } from './pager.ts';
export type { ListFunction, ListPagesOptions, PageAdapter } from './pager-adapter.ts';
export type {
  EvidenceWindow,
  MutationPolicy,
  ReadPolicy,
  TargetSelector,
  TargetsRead,
  ToolPolicy,
  ToolPolicyInput,
} from './policy.ts';
export { parseToolPolicies, readTargets, ToolPolicySchema } from './policy.ts';
export type { RecoveryKind } from './recovery.ts';
export type { FieldPolicies, FieldPolicy } from './redaction.ts';
export type { CompletenessState, InterpretedResult, NextStep, ReasonInput, Recognition } from './results.ts';
export {
  completenessState,
  completeResult,
  errorResult,
  interpretToolResult,
  isEvidenceOfAbsence,
  nextStep,
  partialResult,
  warning,
} from './results.ts';
export type { Session, SessionInfo } from './session.ts';
export type {
  CallOptions,
  MutationCallOptions,
  MutationOutcome,
  ReadOutcome,
  TargetVerifier,
  ToolCallContext,
} from './tool-call.ts';
export type {
  ExternalRead,
  MutationCall,
  MutationDefinition,
  MutationJudgement,
  MutationTool,
  ReadAdapter,
  ReadDefinition,
  ReadTool,
  ToolDefinition,
  Tooltrail,
  TooltrailOptions,
} from './tooltrail.ts';
export { createTooltrail } from './tooltrail.ts';
export type { TraversalState } from './traversal.ts';
