/**
 * Elasticsearch / OpenSearch `_search` responses. `timed_out` (the request's `timeout` elapsed: hits so far only),
 * `_shards.failed` (shards that did not answer: their documents are missing, each failure names its index),
 * `terminated_early` (`terminate_after` stopped collection), and `hits.total` fewer than returned hits with
 * `relation: "gte"` (a lower bound) or more matches than hits. `_shards.skipped` is not a loss: those shards were
 * skipped because they could not match. Continuation: `search_after` from the last hit's `sort`, a scroll id, or
 * a narrower query; a point in time (`pit_id`) is the snapshot.
 */
import type { Continuation, Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

export interface ElasticsearchOptions extends AdapterOptions {
  /** The `size` requested: with no `hits.total` (`track_total_hits: false`), a full page may hide more. */
  size?: number;
  /** The `from` offset requested (default 0). */
  from?: number;
}

const SOURCE = 'elasticsearch';

export const elasticsearchSearch = defineAdapter<ElasticsearchOptions>({
  name: 'elasticsearchSearch',
  read(response, options) {
    // The official client (8.x) returns the body; 7.x returned `{ body, statusCode }`.
    const body = isRecord(response) && isRecord(response.body) && 'hits' in response.body ? response.body : response;
    if (isRecord(body) && isRecord(body.error)) return searchError(body);
    if (!isRecord(body) || !isRecord(body.hits) || !Array.isArray(body.hits.hits)) {
      return unrecognized(body, 'not a search response (hits.hits)');
    }
    const hits = body.hits.hits;
    const reasons: Reason[] = [];
    let continuation: Continuation | undefined;

    if (body.timed_out === true) {
      reasons.push({
        code: 'TIME_BUDGET_EXCEEDED',
        message: 'timed_out: hits gathered before the timeout only',
        source: SOURCE,
      });
      continuation = { kind: 'retry_with_deadline' };
    }
    const shards = isRecord(body._shards) ? body._shards : undefined;
    const failed = shards && typeof shards.failed === 'number' ? shards.failed : 0;
    if (failed > 0) {
      const failures = Array.isArray(shards?.failures) ? shards.failures.filter(isRecord) : [];
      const named = failures.map((f) => shardName(f)).filter((n): n is string => n !== undefined);
      if (named.length === 0) named.push(SOURCE);
      for (const source of [...new Set(named)]) {
        reasons.push({
          code: 'SOURCE_UNAVAILABLE',
          message: `${failed} of ${shards?.total ?? '?'} shards failed`,
          source,
        });
      }
    }
    if (body.terminated_early === true) {
      reasons.push({
        code: 'RESULT_LIMIT_REACHED',
        message: 'terminated_early: terminate_after stopped the search',
        source: SOURCE,
      });
      continuation ??= { kind: 'narrow_query' };
    }

    const more = moreMatches(body.hits.total, hits.length, options);
    if (more === 'unknown') {
      reasons.push({
        code: 'COMPLETENESS_UNKNOWN',
        message: 'no hits.total and no requested size to compare with',
        source: SOURCE,
      });
    } else if (more !== undefined) {
      const last = hits.at(-1);
      const cursor =
        nonEmpty(body._scroll_id) ??
        (isRecord(last) && Array.isArray(last.sort) ? JSON.stringify(last.sort) : undefined);
      if (cursor) {
        reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: more, source: SOURCE });
        continuation ??= { kind: 'next_cursor', cursor };
      } else {
        // from/size paging stops at index.max_result_window; without a sort there is nothing to resume from.
        reasons.push({
          code: 'RESULT_LIMIT_REACHED',
          message: `${more}; sort the query to page with search_after`,
          source: SOURCE,
        });
        continuation ??= { kind: 'narrow_query' };
      }
    }
    const snapshot = nonEmpty(body.pit_id);
    return { items: hits, reasons, ...(continuation ? { continuation } : {}), ...(snapshot ? { snapshot } : {}) };
  },
  // The cursor is the last hit's `sort` values as JSON (for `search_after`), or a scroll id.
  pageParams(cursor, pageSize) {
    if (cursor === undefined) return { size: pageSize };
    try {
      const sort: unknown = JSON.parse(cursor);
      if (Array.isArray(sort)) return { size: pageSize, search_after: sort };
    } catch {
      // not JSON: a scroll id
    }
    return { scroll_id: cursor };
  },
});

/**
 * Whether matches remain beyond this page: a message if so, undefined if not, `unknown` if the response cannot tell.
 * A page shorter than the requested size is the last one (shards that failed or timed out are reported apart).
 */
function moreMatches(
  totalField: unknown,
  returned: number,
  options: ElasticsearchOptions,
): string | undefined | 'unknown' {
  if (options.size !== undefined && returned < options.size) return undefined;
  const seen = (options.from ?? 0) + returned;
  const total =
    typeof totalField === 'number'
      ? { value: totalField, relation: 'eq' }
      : isRecord(totalField)
        ? totalField
        : undefined;
  if (total && typeof total.value === 'number') {
    if (total.relation === 'gte')
      return `at least ${total.value} matches (hits.total is a lower bound), ${returned} returned`;
    return total.value > seen ? `${total.value} matches, ${seen} returned so far` : undefined;
  }
  if (options.size !== undefined) return `a full page of ${options.size} hits and no hits.total to say it was the last`;
  return 'unknown';
}

function shardName(f: Record<string, unknown>): string | undefined {
  const index = nonEmpty(f.index);
  if (index === undefined) return undefined;
  return typeof f.shard === 'number' ? `${index}[${f.shard}]` : index;
}

function searchError(body: Record<string, unknown>) {
  const error = body.error as Record<string, unknown>;
  const status = typeof body.status === 'number' ? body.status : undefined;
  const type = nonEmpty(error.type) ?? 'search_error';
  const message = nonEmpty(error.reason) ?? type;
  let reason: Reason = { code: 'SOURCE_UNAVAILABLE', message, source: SOURCE };
  let continuation: Continuation = { kind: 'none' };
  if (status === 429 || type === 'es_rejected_execution_exception') reason = { ...reason, code: 'RATE_LIMITED' };
  else if (status === 401 || status === 403 || type === 'security_exception')
    reason = { ...reason, code: 'VISIBILITY_RESTRICTED' };
  else if (type === 'search_context_missing_exception') reason = { ...reason, code: 'CURSOR_EXPIRED' };
  else if (status === 504) {
    reason = { ...reason, code: 'TIME_BUDGET_EXCEEDED' };
    continuation = { kind: 'retry_with_deadline' };
  }
  return { reasons: [reason], continuation, error: { type, message } };
}
