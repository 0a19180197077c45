/**
 * SQL results read with a LIMIT n+1 probe: the query asks for one row more than it will return, so a cut is seen,
 * not guessed. A statement cancelled by `statement_timeout` (PostgreSQL SQLSTATE 57014) is TIME_BUDGET_EXCEEDED;
 * rows hidden by row-level security are invisible to SQL itself, so VISIBILITY_RESTRICTED is set when the caller
 * says a policy applies (`rowSecurity`). Input: `{ rows }` (node-postgres, mysql2, ...) or the driver's error.
 */
import type { Continuation, Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

export interface SqlOptions extends AdapterOptions {
  /** The rows the caller returns at most; the query must have asked for `probeLimit(limit)` = limit + 1. */
  limit?: number;
  /** A row-level security policy filters what this role sees (name it: it becomes the reason's source). */
  rowSecurity?: string;
  /** Keyset pagination: the cursor to resume after a row (e.g. its id); without it a cut is `narrow_query`. */
  keyset?: (lastRow: unknown) => string | undefined;
  /** The transaction snapshot every page was read in (PostgreSQL: `pg_export_snapshot()` in REPEATABLE READ). */
  snapshot?: string;
}

const SOURCE = 'sql';

/** SQLSTATE → reason, for the errors that mean "not everything was read" rather than "the query is wrong". */
const SQLSTATES: Record<string, Reason['code']> = {
  '57014': 'TIME_BUDGET_EXCEEDED', // query_canceled: statement_timeout, or a cancel request
  '55P03': 'TIME_BUDGET_EXCEEDED', // lock_not_available: lock_timeout
  '25P04': 'TIME_BUDGET_EXCEEDED', // idle_in_transaction_session_timeout
  '42501': 'VISIBILITY_RESTRICTED', // insufficient_privilege
  '53300': 'RATE_LIMITED', // too_many_connections
  '40001': 'SOURCE_UNAVAILABLE', // serialization_failure
  '40P01': 'SOURCE_UNAVAILABLE', // deadlock_detected
  '57P01': 'SOURCE_UNAVAILABLE', // admin_shutdown
  '08006': 'SOURCE_UNAVAILABLE', // connection_failure
};

/** What to put in the query's LIMIT to see a cut: one row more than will be returned. */
export function probeLimit(limit: number): number {
  return limit + 1;
}

export const sqlResult = defineAdapter<SqlOptions>({
  name: 'sqlResult',
  read(response, options) {
    if (
      isRecord(response) &&
      typeof response.code === 'string' &&
      /^[0-9A-Z]{5}$/.test(response.code) &&
      !Array.isArray(response.rows)
    ) {
      return sqlError(response);
    }
    const snap = options.snapshot ? { snapshot: options.snapshot } : {};
    const rows = Array.isArray(response)
      ? response
      : isRecord(response) && Array.isArray(response.rows)
        ? response.rows
        : undefined;
    if (rows === undefined) return unrecognized(response, 'no rows');
    const reasons: Reason[] = [];
    if (options.rowSecurity) {
      reasons.push({
        code: 'VISIBILITY_RESTRICTED',
        message: 'row-level security filters the rows this role sees',
        source: options.rowSecurity,
      });
    }
    if (options.limit === undefined) {
      reasons.push({
        code: 'COMPLETENESS_UNKNOWN',
        message: 'no limit given: cannot tell whether the query was cut',
        source: SOURCE,
      });
      return { items: rows, reasons, ...snap };
    }
    if (rows.length <= options.limit) return { items: rows, reasons, ...snap };
    const items = rows.slice(0, options.limit);
    const cursor = options.keyset ? options.keyset(items.at(-1)) : undefined;
    // With a keyset the rest is the next page; without one the LIMIT is a wall: narrow the query.
    reasons.push({
      code: cursor ? 'MORE_PAGES_AVAILABLE' : 'RESULT_LIMIT_REACHED',
      message: `more than ${options.limit} rows`,
      source: SOURCE,
      limit: options.limit,
    });
    const continuation: Continuation = cursor ? { kind: 'next_cursor', cursor } : { kind: 'narrow_query' };
    return { items, reasons, continuation, ...snap };
  },
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { limit: probeLimit(pageSize) } : { limit: probeLimit(pageSize), after: cursor };
  },
});

function sqlError(e: Record<string, unknown>) {
  const sqlstate = e.code as string;
  const message = nonEmpty(e.message) ?? `SQLSTATE ${sqlstate}`;
  const code = SQLSTATES[sqlstate];
  const continuation: Continuation =
    code === 'TIME_BUDGET_EXCEEDED' ? { kind: 'retry_with_deadline' } : { kind: 'none' };
  return {
    reasons: code ? [{ code, message, source: SOURCE }] : [],
    continuation,
    error: { type: `SQLSTATE ${sqlstate}`, message },
  };
}
