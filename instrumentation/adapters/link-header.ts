/**
 * RFC 8288 `Link` pagination (GitHub REST and many others): a `rel="next"` link means more pages; a list response
 * without one is the last page. Input: `{ status?, headers, data }` (Octokit, or any client shaped like it) or a
 * thrown HTTP error carrying `status` and `response.headers`.
 */
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, unrecognized } from './adapter.ts';
import { httpFailure, httpParts, nextLink, queryParams } from './http.ts';

export interface LinkHeaderOptions extends AdapterOptions {
  /** Where the list is in the body when it is not the body itself (e.g. `workflow_runs`). */
  itemsField?: string;
}

const SOURCE = 'http';

export const linkHeader = defineAdapter<LinkHeaderOptions>({
  name: 'linkHeader',
  read(response, options) {
    const { status, headers, body } = httpParts(response);
    const failed = httpFailure(status, headers, options.resource ?? SOURCE);
    if (failed) {
      return {
        reasons: [failed.reason],
        continuation: failed.continuation,
        error: { type: `http_${status}`, message: failed.reason.message ?? '' },
      };
    }
    if (headers === undefined) return unrecognized(body, 'no headers: cannot tell whether a next page exists');
    const list =
      options.itemsField && body && typeof body === 'object'
        ? (body as Record<string, unknown>)[options.itemsField]
        : body;
    if (!Array.isArray(list)) return unrecognized(body, 'the body is not a list');
    const next = nextLink(headers);
    if (next === undefined) return { items: list, reasons: [] };
    return {
      items: list,
      reasons: [{ code: 'MORE_PAGES_AVAILABLE', message: 'the Link header has rel="next"', source: SOURCE }],
      continuation: { kind: 'next_cursor', cursor: next },
    };
  },
  // The cursor is the next URL: its query (page, per_page, cursor, ...) is what the next call needs.
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { per_page: pageSize } : { per_page: pageSize, ...queryParams(cursor) };
  },
});
