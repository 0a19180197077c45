/**
 * Stable codes of the completeness contract. Programs branch on these; humans read the message beside them.
 * Adding a code is a minor semconv version; renaming or removing one is a major one.
 */

/** Why a result is not complete. Any reason makes `complete` false. */
export const REASON_CODES = [
  'MORE_PAGES_AVAILABLE',
  'RESULT_LIMIT_REACHED',
  'TIME_BUDGET_EXCEEDED',
  'SOURCE_UNAVAILABLE',
  'VISIBILITY_RESTRICTED',
  /** The wrapper's own page/item/time cap: the case teams forget. */
  'CLIENT_LIMIT_REACHED',
  'CURSOR_EXPIRED',
  'RATE_LIMITED',
  /** The tool said nothing about completeness: counts as incomplete, never as complete. */
  'COMPLETENESS_UNKNOWN',
] as const;
export type ReasonCode = (typeof REASON_CODES)[number];

/** Confidence, freshness, interpretation. Never make a result incomplete by themselves. */
export const WARNING_CODES = [
  'STALE_INDEX',
  'PARTIAL_FIELD_SET',
  'DEFAULT_SCOPE_APPLIED',
  'SORT_OVERRIDDEN',
  'VALUE_NORMALIZED',
  'DEPRECATED_FIELD',
] as const;
export type WarningCode = (typeof WARNING_CODES)[number];

/**
 * Warnings the pipeline itself puts on a stored tool call when the sender broke the span contract (the span is
 * kept, never dropped): a `tool_call_warnings` row with the code, the attribute as its `source` and a message
 * naming the type received and the type expected. Like the warnings above they never make a result incomplete by
 * themselves; a malformed decision field leaves completeness unknown, which already counts as incomplete.
 */
export const PIPELINE_WARNING_CODES = [
  /** A contract attribute of the wrong type or value: not used, counted as absent (unknown). */
  'INVALID_CONTRACT_ATTRIBUTE',
  /** A contract attribute of the wrong type that converts safely (an integer-valued double for a count). */
  'CONTRACT_ATTRIBUTE_COERCED',
  /** A span stored as a tool call by what it carries, without `gen_ai.operation.name = execute_tool`. */
  'TOOL_SPAN_INFERRED',
] as const;
export type PipelineWarningCode = (typeof PIPELINE_WARNING_CODES)[number];

/**
 * Why a cursor traversal (pages read one after another, each with the cursor the previous one returned) cannot be
 * complete, whatever its last page says. Since semconv 1.5.0 (`tooltrail.traversal.break`).
 */
export const TRAVERSAL_BREAKS = [
  /** A page declared another snapshot than the traversal's earlier pages: the pages are not of one listing. */
  'SNAPSHOT_CHANGED',
  /** A page answered that its cursor had expired: the traversal cannot go on. */
  'CURSOR_EXPIRED',
  /** A read carried a cursor that no read of the session returned: where it starts is unknown. */
  'CURSOR_NOT_RECEIVED',
  /** A read skipped ahead of the next page (a page number or offset past the one the previous page gave). */
  'PAGE_SKIPPED',
] as const;
export type TraversalBreak = (typeof TRAVERSAL_BREAKS)[number];

export const CONTINUATION_KINDS = [
  'next_cursor',
  'retry_after',
  'narrow_query',
  'retry_with_deadline',
  'none',
] as const;
export type ContinuationKind = (typeof CONTINUATION_KINDS)[number];

/** `partial` marks usable data with a limit; `error` marks no usable data. */
export const RESULT_STATUSES = ['complete', 'partial', 'error'] as const;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export const EFFECTS = ['read', 'mutation'] as const;
export type Effect = (typeof EFFECTS)[number];

/** `presence`: acts on items it saw. `absence`: acts on what a read did not return. */
export const MUTATION_BASES = ['presence', 'absence'] as const;
export type MutationBasis = (typeof MUTATION_BASES)[number];

export const GUARD_DECISIONS = ['allowed', 'refused', 'review_requested'] as const;
export type GuardDecision = (typeof GUARD_DECISIONS)[number];

/**
 * Why the library's guard judged a mutation unsafe. On spans only in the `tooltrail.guard.unenforced` event (what a
 * disabled guard would have found); the guard's decision itself is `tooltrail.guard.decision`.
 */
export const GUARD_FINDING_CODES = [
  'NO_PLAN',
  'NO_EVIDENCE',
  'EVIDENCE_NOT_FOUND',
  'EVIDENCE_INCOMPLETE',
  'EVIDENCE_SCOPE_UNDECLARED',
  'SCOPE_MISMATCH',
  'TARGETS_NOT_IN_EVIDENCE',
  'TARGETS_PRESENT_IN_EVIDENCE',
  /** The targets could not be read from the arguments by the tool's policy (JSON pointer or function). */
  'TARGETS_UNREADABLE',
  /** A read relied on is older than the evidence window. */
  'EVIDENCE_STALE',
  /** The targets cannot be compared with the evidence: its items carry no ids, or too many to remember. */
  'TARGETS_UNVERIFIABLE',
  /** A warning on the evidence blocks the mutation (a per-code policy, or the warning was escalated). */
  'WARNING_BLOCKS_MUTATION',
  /** The tool's `verifyTarget` hook, run just before execution, found targets that no longer qualify. */
  'TARGET_NO_LONGER_QUALIFIES',
] as const;
export type GuardFindingCode = (typeof GUARD_FINDING_CODES)[number];
