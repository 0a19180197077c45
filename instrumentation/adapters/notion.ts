/**
 * Notion API lists (`object: "list"`: data source queries, search, block children, users): `has_more` with
 * `next_cursor`. A query stops at 10,000 results with `has_more: false` and `request_status.type: "incomplete"`
 * (`incomplete_reason: "query_result_limit_reached"`), on any page: the loop that trusts `has_more` alone stops
 * "complete". Only pages and databases shared with the integration are visible.
 */
import type { Continuation, Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

const SOURCE = 'notion';

export const notionList = defineAdapter<AdapterOptions>({
  name: 'notionList',
  read(response) {
    if (!isRecord(response)) return unrecognized(response, 'not a Notion response');
    // @notionhq/client throws APIResponseError with `code` and `status`; the raw error body is `object: "error"`.
    if (response.object === 'error' || (typeof response.code === 'string' && typeof response.status === 'number')) {
      return notionError(response);
    }
    if (response.object !== 'list' || !Array.isArray(response.results) || typeof response.has_more !== 'boolean') {
      return unrecognized(response, 'not a Notion list (object "list", results, has_more)');
    }
    const items = response.results;
    const reasons: Reason[] = [];
    let continuation: Continuation | undefined;
    const status = isRecord(response.request_status) ? response.request_status : undefined;
    if (status && status.type !== 'complete') {
      const why = nonEmpty(status.incomplete_reason) ?? String(status.type);
      reasons.push({
        code: why === 'query_result_limit_reached' ? 'RESULT_LIMIT_REACHED' : 'COMPLETENESS_UNKNOWN',
        message: `request_status ${String(status.type)}: ${why}`,
        source: SOURCE,
        ...(why === 'query_result_limit_reached' ? { limit: 10_000 } : {}),
      });
      continuation = { kind: 'narrow_query', hint: 'split the query into created_time windows' };
    }
    if (response.has_more) {
      const cursor = nonEmpty(response.next_cursor);
      reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: 'has_more', source: SOURCE });
      if (cursor) continuation = { kind: 'next_cursor', cursor };
      else reasons.push({ code: 'COMPLETENESS_UNKNOWN', message: 'has_more without a next_cursor', source: SOURCE });
    }
    return { items, reasons, ...(continuation ? { continuation } : {}) };
  },
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { page_size: pageSize } : { page_size: pageSize, start_cursor: cursor };
  },
});

function notionError(e: Record<string, unknown>) {
  const code = nonEmpty(e.code) ?? 'error';
  const message = nonEmpty(e.message) ?? code;
  let reason: Reason['code'] = 'SOURCE_UNAVAILABLE';
  if (code === 'rate_limited' || e.status === 429) reason = 'RATE_LIMITED';
  // object_not_found also means "not shared with this integration".
  else if (
    ['restricted_resource', 'unauthorized', 'object_not_found'].includes(code) ||
    e.status === 401 ||
    e.status === 403
  )
    reason = 'VISIBILITY_RESTRICTED';
  return { reasons: [{ code: reason, message, source: SOURCE }], error: { type: code, message } };
}
