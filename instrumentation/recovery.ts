/**
 * What an agent (or its reviewer) can do about a mutation the guard stopped: options that follow the reasons the
 * evidence gave and the findings the guard made, never a fixed list (a longer deadline does not cure a permission).
 */
import type {
  Continuation,
  GuardFindingCode,
  MutationBasis,
  ReasonCode,
  TraversalBreak,
  WarningCode,
} from '../contract/index.ts';

export type RecoveryOption =
  | { kind: 'read_all_pages'; cursor?: string; description: string }
  | { kind: 'retry_with_longer_deadline'; minimumSeconds?: number; description: string }
  | { kind: 'retry_after'; afterSeconds?: number; description: string }
  | { kind: 'narrow_query'; hint?: string; description: string }
  | { kind: 'use_credential_that_sees_scope'; visibility: string[]; description: string }
  | { kind: 'retry_later'; description: string }
  | { kind: 'read_again'; description: string }
  | { kind: 'use_tool_that_states_completeness'; description: string }
  | { kind: 'read_with_item_ids'; description: string }
  | { kind: 'resolve_warning'; warnings: { code: WarningCode; source: string }[]; description: string }
  | { kind: 'narrow_to_returned_ids'; targets: string[]; targetCount: number; description: string }
  | { kind: 'narrow_to_verified_targets'; targets: string[]; targetCount: number; description: string }
  | { kind: 'abandon'; description: string };

export type RecoveryKind = RecoveryOption['kind'];

/** What the options are built from: the relied reads' reasons and continuations, the findings, the targets. */
export interface RecoveryInput {
  basis: MutationBasis;
  reads: readonly {
    reasons: readonly { code: ReasonCode }[];
    continuation: Continuation;
    visibility?: string;
    /** A failed read (status `error`), which may give no reason. */
    failed: boolean;
    /** A cursor traversal that can no longer be complete, whatever page comes next. */
    broken?: TraversalBreak;
  }[];
  findings: readonly { code: GuardFindingCode }[];
  /** Presence-based targets the reads returned, when their ids are known. */
  returnedTargets: string[] | undefined;
  /** Targets a `verifyTarget` hook confirmed, when one ran and refused some. */
  verifiedTargets: string[] | undefined;
  blockingWarnings: readonly { code: WarningCode; source: string }[];
}

export function recoveryOptions(input: RecoveryInput): RecoveryOption[] {
  const out = new Map<RecoveryKind, RecoveryOption>();
  const add = (o: RecoveryOption) => {
    if (!out.has(o.kind)) out.set(o.kind, o);
  };
  for (const read of input.reads) {
    if (read.broken !== undefined) {
      // No next page mends it: the pages are not of one listing, or where it began is unknown.
      add({
        kind: 'read_again',
        description: `the paged read cannot be completed (${read.broken}): read again from the first page, following each cursor to the end`,
      });
      continue;
    }
    if (read.failed && read.reasons.length === 0) {
      add({ kind: 'retry_later', description: 'the read failed: read again once the source answers' });
    }
    for (const { code } of read.reasons) {
      const option = forReason(code, read.continuation, input.reads);
      if (option) add(option);
    }
  }
  const found = new Set(input.findings.map((f) => f.code));
  const readAgain = ['NO_EVIDENCE', 'EVIDENCE_NOT_FOUND', 'EVIDENCE_STALE', 'SCOPE_MISMATCH'] as const;
  if (readAgain.some((c) => found.has(c))) {
    add({ kind: 'read_again', description: 'read the resource again in this session, to the end, then re-plan' });
  }
  if (found.has('EVIDENCE_SCOPE_UNDECLARED')) {
    add({
      kind: 'use_tool_that_states_completeness',
      description: 'read with a tool that declares the scope its completeness covers',
    });
  }
  if (found.has('TARGETS_UNVERIFIABLE')) {
    add({
      kind: 'read_with_item_ids',
      description: 'read with a tool whose items carry ids (or declare its itemId), so each target can be checked',
    });
  }
  if (found.has('WARNING_BLOCKS_MUTATION') && input.blockingWarnings.length > 0) {
    add({
      kind: 'resolve_warning',
      warnings: [...input.blockingWarnings],
      description: `have the owner of ${input.blockingWarnings.map((w) => `${w.code} (${w.source})`).join(', ')} resolve it, then read again`,
    });
  }
  if (input.verifiedTargets !== undefined) {
    add({
      kind: 'narrow_to_verified_targets',
      targets: input.verifiedTargets,
      targetCount: input.verifiedTargets.length,
      description: 'act only on the targets that still qualified when re-checked just now',
    });
  }
  if (input.basis === 'presence' && input.returnedTargets !== undefined) {
    add({
      kind: 'narrow_to_returned_ids',
      targets: input.returnedTargets,
      targetCount: input.returnedTargets.length,
      description: 'act only on the targets the reads actually returned, each re-checked at execution',
    });
  }
  add({ kind: 'abandon', description: 'do not perform this mutation' });
  return [...out.values()];
}

function forReason(
  code: ReasonCode,
  continuation: Continuation,
  reads: RecoveryInput['reads'],
): RecoveryOption | undefined {
  switch (code) {
    case 'MORE_PAGES_AVAILABLE':
      return readAllPages(continuation);
    case 'TIME_BUDGET_EXCEEDED':
      return longerDeadline(reads);
    case 'RATE_LIMITED':
      return {
        kind: 'retry_after',
        ...(continuation.kind === 'retry_after' ? { afterSeconds: continuation.after_seconds } : {}),
        description: 'wait as long as the source asked, then read again to the end',
      };
    case 'RESULT_LIMIT_REACHED':
      return narrowQuery(continuation);
    case 'VISIBILITY_RESTRICTED':
      return {
        kind: 'use_credential_that_sees_scope',
        visibility: [...new Set(reads.flatMap((r) => (r.visibility ? [r.visibility] : [])))],
        description: 'read again with a credential that can see the whole scope (or act only on what was seen)',
      };
    case 'SOURCE_UNAVAILABLE':
      return { kind: 'retry_later', description: 'read again once the unavailable source is back' };
    case 'CURSOR_EXPIRED':
      return { kind: 'read_again', description: 'the cursor expired: read again from the first page, to the end' };
    case 'COMPLETENESS_UNKNOWN':
      return {
        kind: 'use_tool_that_states_completeness',
        description: 'read with a tool that states whether its result is complete',
      };
    case 'CLIENT_LIMIT_REACHED':
      // The wrapper's own budget stopped it; its continuation says how to go on.
      if (continuation.kind === 'narrow_query') return narrowQuery(continuation);
      if (continuation.kind === 'retry_with_deadline') return longerDeadline(reads);
      return readAllPages(continuation);
  }
}

function readAllPages(continuation: Continuation): RecoveryOption {
  return {
    kind: 'read_all_pages',
    ...(continuation.kind === 'next_cursor' ? { cursor: continuation.cursor } : {}),
    description:
      'read every page (collectAllPages, with a budget large enough) until the read is complete, then re-plan',
  };
}

function narrowQuery(continuation: Continuation): RecoveryOption {
  return {
    kind: 'narrow_query',
    ...(continuation.kind === 'narrow_query' && continuation.hint !== undefined ? { hint: continuation.hint } : {}),
    description: 'ask for less (a narrower filter) so that each read is complete, then re-plan',
  };
}

function longerDeadline(reads: RecoveryInput['reads']): RecoveryOption {
  const minimumSeconds = Math.max(
    0,
    ...reads.map((r) => (r.continuation.kind === 'retry_with_deadline' ? (r.continuation.minimum_seconds ?? 0) : 0)),
  );
  return {
    kind: 'retry_with_longer_deadline',
    ...(minimumSeconds > 0 ? { minimumSeconds } : {}),
    description: 'read again with a longer deadline (and page budget) until the read is complete, then re-plan',
  };
}
