/**
 * Cursor traversals in a stored session (semconv 1.5.0): the pages a session read cursor after cursor, linked by
 * `tooltrail.traversal.id`, are one read. The rule is the detectors' (alerts/detectors/fragments/
 * traversal_complete.sql): complete when the first page is stored, every position after it, every page that declared
 * a snapshot declared the same one, no page broke it (a recorded break, an expired cursor), and its last page said
 * complete. Pure, for the timeline builder.
 */
import { completenessOf } from './blind-spots.ts';
import type { CallRow } from './rows.ts';

/** A read's traversal: the id it names, else its own call id (else its span id). */
export function traversalKey(r: CallRow): string {
  return r.traversal_id || r.tool_call_id || r.span_id;
}

/** Its position, from 1 (0 when it carried none: a first page, or one whose position the emitter did not know). */
function position(r: CallRow): number {
  return Math.max(r.traversal_page ?? 0, 1);
}

function isFirst(r: CallRow): boolean {
  return !r.traversal_break && (r.traversal_page ?? 0) <= 1 && (!r.traversal_id || r.traversal_id === r.tool_call_id);
}

/** Whether the read is a page of a traversal of several pages (one the emitter linked, or grouped under one id). */
export function isPaged(r: CallRow): boolean {
  return Boolean(r.traversal_id);
}

export interface TraversalJudgement {
  pages: number;
  complete: boolean;
  snapshot: string | null;
  /** Why it can no longer be complete, and at which position. */
  broke: { reason: string; page: number | null } | null;
  /** Incomplete without a break: the position it stopped at. */
  stoppedAt: number | null;
  /** "3 pages, complete over snapshot inv-77", "stopped at page 2 (MORE_PAGES_AVAILABLE)". */
  statement: string;
}

/** The traversal its pages make, in the order they were read. */
export function judgeTraversal(pages: readonly CallRow[]): TraversalJudgement {
  const positions = new Set(pages.map(position));
  const max = Math.max(...positions);
  const last = [...pages].reverse().find((p) => position(p) === max) as CallRow;
  const snapshots = [...new Set(pages.map((p) => p.scope_snapshot).filter((s) => s !== ''))];
  const recorded = pages.find((p) => p.traversal_break);
  const expired = pages.find((p) => p.result_reasons.includes('CURSOR_EXPIRED'));
  const changed =
    snapshots.length > 1 ? pages.find((p) => p.scope_snapshot !== '' && p.scope_snapshot !== snapshots[0]) : undefined;
  const broke: TraversalJudgement['broke'] = recorded
    ? { reason: recorded.traversal_break ?? '', page: recorded.traversal_page ? position(recorded) : null }
    : expired
      ? { reason: 'CURSOR_EXPIRED', page: position(expired) }
      : changed
        ? { reason: 'SNAPSHOT_CHANGED', page: position(changed) }
        : null;
  const missing = [...Array(max).keys()].map((i) => i + 1).filter((p) => !positions.has(p));
  const headless = !pages.some(isFirst);
  const complete = !broke && !headless && missing.length === 0 && completenessOf(last) === 'complete';
  const pagesText = `${max} page${max === 1 ? '' : 's'}`;
  let statement: string;
  if (complete) {
    statement = `${pagesText}, complete${snapshots[0] ? ` over snapshot ${snapshots[0]}` : ''}`;
  } else if (broke) {
    const where =
      broke.page === null ? 'at a page read with a cursor the session never received' : `at page ${broke.page}`;
    const detail =
      broke.reason === 'SNAPSHOT_CHANGED' && snapshots.length > 1 ? ` (snapshot ${snapshots.join(', then ')})` : '';
    statement = `${pagesText}, broke ${where}: ${broke.reason}${detail}; it cannot be complete`;
  } else if (headless) {
    statement = `${pagesText}, its first page is not stored: where it began is unknown`;
  } else if (missing.length > 0) {
    statement = `${pagesText}, page${missing.length === 1 ? '' : 's'} ${missing.join(', ')} missing`;
  } else {
    const why = last.result_reasons.length ? ` (${last.result_reasons.join(', ')})` : ` (${completenessOf(last)})`;
    statement = `${pagesText}, stopped at page ${max}${why}: the rest was not read`;
  }
  return {
    pages: max,
    complete,
    snapshot: snapshots.length === 1 ? (snapshots[0] as string) : null,
    broke,
    stoppedAt: complete || broke ? null : max,
    statement,
  };
}
