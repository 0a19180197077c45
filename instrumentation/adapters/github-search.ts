/**
 * GitHub REST search (`GET /search/issues`, `/search/code`, ...): `incomplete_results: true` means the query timed
 * out before every match was found; a search never serves more than 1,000 results; `Link` gives the next page.
 */
import type { Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, unrecognized } from './adapter.ts';
import { httpFailure, httpParts, nextLink, queryParams } from './http.ts';

/** "The GitHub REST API provides up to 1,000 results for each search." */
export const GITHUB_SEARCH_RESULT_CAP = 1000;
const SOURCE = 'github search';

export const githubSearch = defineAdapter<AdapterOptions>({
  name: 'githubSearch',
  read(response) {
    const { status, headers, body } = httpParts(response);
    const failed = httpFailure(status, headers, SOURCE);
    if (failed) {
      return {
        reasons: [failed.reason],
        continuation: failed.continuation,
        error: { type: `http_${status}`, message: failed.reason.message ?? '' },
      };
    }
    if (!isRecord(body) || !Array.isArray(body.items) || typeof body.incomplete_results !== 'boolean') {
      return unrecognized(body, 'not a search response (items, incomplete_results)');
    }
    const items = body.items;
    const total = typeof body.total_count === 'number' ? body.total_count : undefined;
    const reasons: Reason[] = [];
    if (body.incomplete_results) {
      reasons.push({
        code: 'TIME_BUDGET_EXCEEDED',
        message: 'incomplete_results: the search timed out',
        source: SOURCE,
      });
    }
    const next = headers === undefined ? undefined : nextLink(headers);
    if (next) {
      reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: 'the Link header has rel="next"', source: SOURCE });
      return { items, reasons, continuation: { kind: 'next_cursor', cursor: next } };
    }
    if (total !== undefined && total > GITHUB_SEARCH_RESULT_CAP) {
      reasons.push({
        code: 'RESULT_LIMIT_REACHED',
        message: `${total} matches; a search serves at most ${GITHUB_SEARCH_RESULT_CAP}`,
        source: SOURCE,
        limit: GITHUB_SEARCH_RESULT_CAP,
      });
      return { items, reasons, continuation: { kind: 'narrow_query', hint: 'split the query (e.g. by created date)' } };
    }
    if (headers === undefined && (total === undefined || total > items.length)) {
      // Body only: the next link is not visible; only a count that matches the page proves it is the only one.
      reasons.push({
        code: total === undefined ? 'COMPLETENESS_UNKNOWN' : 'MORE_PAGES_AVAILABLE',
        message: `${items.length} of ${total ?? 'an unknown number of'} matches, and no Link header to tell`,
        source: SOURCE,
      });
    }
    const continuation = body.incomplete_results ? ({ kind: 'retry_with_deadline' } as const) : undefined;
    return { items, reasons, ...(continuation ? { continuation } : {}) };
  },
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { per_page: pageSize } : { per_page: pageSize, ...queryParams(cursor) };
  },
});
