/**
 * Reading and building completeness envelopes. Whatever a tool returns, the caller gets a validated ToolResult;
 * a tool that says nothing (or says something invalid) is `complete: false` with COMPLETENESS_UNKNOWN.
 */
import type { Continuation, Reason, ReasonCode, Scope, ToolResult, Warning, WarningCode } from '../contract/index.ts';
import { RESULT_STATUSES, ToolResultRuntimeSchema } from '../contract/index.ts';
import { fastParseToolResult } from './envelope-fast-path.ts';

/**
 * How a value was understood: a valid contract; only a pagination cursor (MCP `nextCursor`); no contract at all;
 * or a contract that failed validation.
 */
export type Recognition = 'contract' | 'pagination' | 'unknown' | 'invalid';

export interface InterpretedResult<T = unknown> {
  result: ToolResult<T>;
  recognized: Recognition;
  /** Why validation failed, for `invalid`. */
  problem?: string;
}

const NONE: Continuation = { kind: 'none' };

/** Validate what a tool returned. Never throws; never turns an unvalidated claim into `complete: true`. */
export function interpretToolResult<T = unknown>(value: unknown): InterpretedResult<T> {
  if (!claimsContract(value)) {
    return { result: unknownResult<T>(value, 'the tool said nothing about completeness'), recognized: 'unknown' };
  }
  // The same rules, checked by hand for a well-formed envelope; zod decides everything else (and every failure).
  const fast = fastParseToolResult(value);
  if (fast !== undefined) return { result: fast as ToolResult<T>, recognized: 'contract' };
  const parsed = ToolResultRuntimeSchema.safeParse(value);
  if (parsed.success) return { result: parsed.data as ToolResult<T>, recognized: 'contract' };
  const problem = parsed.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`)
    .join('; ');
  const items = Array.isArray((value as { items?: unknown }).items) ? (value as { items: T[] }).items : undefined;
  return {
    result: unknownResult<T>(items ?? value, `the completeness contract did not validate (${problem})`),
    recognized: 'invalid',
    problem,
  };
}

/** A value claims the contract when it has `completeness`, or a `status` among the contract's statuses. */
function claimsContract(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  if ('completeness' in value) return true;
  const status = (value as { status?: unknown }).status;
  return typeof status === 'string' && (RESULT_STATUSES as readonly string[]).includes(status);
}

/** Unknown completeness: the data is kept, the claim is not. */
export function unknownResult<T = unknown>(value: unknown, message: string): ToolResult<T> {
  const base = {
    status: 'partial' as const,
    completeness: {
      complete: false as const,
      reasons: [{ code: 'COMPLETENESS_UNKNOWN' as const, message }],
      continuation: NONE,
    },
    warnings: [],
  };
  if (Array.isArray(value)) return { ...base, items: value as T[] };
  return value === undefined ? base : { ...base, data: value };
}

export interface ResultParts<T> {
  items?: T[];
  data?: unknown;
  scope?: Scope;
  warnings?: Warning[];
}

/** A complete result: the whole declared scope was examined. */
export function completeResult<T>(parts: ResultParts<T>): ToolResult<T> {
  return {
    status: 'complete',
    completeness: { complete: true, reasons: [], continuation: { kind: 'none' } },
    ...withParts(parts),
  };
}

/** A partial result: usable data with a limit, and why. */
export function partialResult<T>(
  parts: ResultParts<T> & { reasons: readonly [ReasonInput, ...ReasonInput[]]; continuation?: Continuation },
): ToolResult<T> {
  return {
    status: 'partial',
    completeness: {
      complete: false,
      reasons: parts.reasons.map(toReason),
      continuation: parts.continuation ?? NONE,
    },
    ...withParts(parts),
  };
}

/** No usable data. */
export function errorResult<T = never>(
  parts: ResultParts<T> & {
    type: string;
    message: string;
    reasons?: readonly ReasonInput[];
    continuation?: Continuation;
  },
): ToolResult<T> {
  return {
    status: 'error',
    error: { type: parts.type, message: parts.message },
    completeness: {
      complete: false,
      reasons: (parts.reasons ?? []).map(toReason),
      continuation: parts.continuation ?? NONE,
    },
    ...withParts(parts),
  };
}

export type ReasonInput = ReasonCode | Reason;

function toReason(r: ReasonInput): Reason {
  return typeof r === 'string' ? { code: r } : r;
}

function withParts<T>(parts: ResultParts<T>) {
  const out: { items?: T[]; data?: unknown; scope?: Scope; warnings: Warning[] } = { warnings: parts.warnings ?? [] };
  if (parts.items !== undefined) out.items = parts.items;
  if (parts.data !== undefined) out.data = parts.data;
  if (parts.scope !== undefined) out.scope = parts.scope;
  return out;
}

/** Build a warning; the source is mandatory so that the warning can have an owner. */
export function warning(code: WarningCode, source: string, message: string): Warning {
  return { code, source, message };
}

/** The four states of the contract, never collapsed. */
export type CompletenessState = 'complete_with_items' | 'complete_empty' | 'incomplete_with_items' | 'incomplete_empty';

export function completenessState(result: ToolResult): CompletenessState {
  const hasItems = result.items ? result.items.length > 0 : result.data !== undefined && result.data !== null;
  if (result.completeness.complete) return hasItems ? 'complete_with_items' : 'complete_empty';
  return hasItems ? 'incomplete_with_items' : 'incomplete_empty';
}

/** An empty collection is evidence of absence only when the result is complete. */
export function isEvidenceOfAbsence(result: ToolResult): boolean {
  return result.completeness.complete && (result.items?.length ?? 0) === 0;
}

/**
 * What an agent should do next with a result. Read-side only: a mutation's decision comes from the guard.
 * - `use_as_complete_evidence`: the scope was covered; an empty list means none exist in that scope.
 * - `continue_search`: a next page is documented; fetch it before concluding anything.
 * - `retry_later`, `retry_with_longer_deadline`, `narrow_query`: the continuation the tool offered.
 * - `treat_as_partial`: summarize or propose a read-only follow-up; never claim absence.
 * - `report_error`: no usable data.
 */
export type NextStep =
  | 'use_as_complete_evidence'
  | 'continue_search'
  | 'retry_later'
  | 'retry_with_longer_deadline'
  | 'narrow_query'
  | 'treat_as_partial'
  | 'report_error';

export function nextStep(result: ToolResult): NextStep {
  if (result.completeness.complete) return 'use_as_complete_evidence';
  if (result.status === 'error' && result.completeness.continuation.kind === 'none') return 'report_error';
  // A restart after an expired cursor is a new scan: only the caller may choose it.
  if (result.completeness.reasons.some((r) => r.code === 'CURSOR_EXPIRED')) return 'treat_as_partial';
  switch (result.completeness.continuation.kind) {
    case 'next_cursor':
      return 'continue_search';
    case 'retry_after':
      return 'retry_later';
    case 'retry_with_deadline':
      return 'retry_with_longer_deadline';
    case 'narrow_query':
      return 'narrow_query';
    case 'none':
      return 'treat_as_partial';
  }
}
