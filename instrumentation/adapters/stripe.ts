/**
 * Stripe list and search responses: `{ object: "list", data, has_more, url }` pages by `starting_after` = the last
 * object's id; `{ object: "search_result", data, has_more, next_page }` pages by `page`, and search is not
 * read-after-write consistent (STALE_INDEX warning). Errors are `{ error: { type, code, message } }`.
 */
import type { Reason, Warning } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

const SOURCE = 'stripe';
const SEARCH_PREFIX = 'page:';

export const stripeList = defineAdapter<AdapterOptions>({
  name: 'stripeList',
  read(response) {
    if (!isRecord(response)) return unrecognized(response, 'not a Stripe response');
    // stripe-node throws StripeError with `type` and `statusCode`; the raw body wraps it in `error`.
    const err = isRecord(response.error)
      ? response.error
      : typeof response.statusCode === 'number' && typeof response.type === 'string'
        ? response
        : undefined;
    if (err) return stripeError(err, response);
    const search = response.object === 'search_result';
    if (
      (response.object !== 'list' && !search) ||
      !Array.isArray(response.data) ||
      typeof response.has_more !== 'boolean'
    ) {
      return unrecognized(response, 'not a Stripe list (object "list" or "search_result", data, has_more)');
    }
    const items = response.data;
    const url = nonEmpty(response.url);
    const resource = url?.replace(/^\/v1\//, '').replace(/\/search$/, '');
    const warnings: Warning[] = search
      ? [{ code: 'STALE_INDEX', message: 'search results can lag writes by up to a minute', source: 'stripe search' }]
      : [];
    const common = { items, warnings, ...(resource ? { resource } : {}) };
    if (!response.has_more) return { ...common, reasons: [] };
    const reasons: Reason[] = [{ code: 'MORE_PAGES_AVAILABLE', message: 'has_more', source: SOURCE }];
    const last = items.at(-1);
    const cursor = search ? prefixed(nonEmpty(response.next_page)) : isRecord(last) ? nonEmpty(last.id) : undefined;
    if (cursor === undefined) {
      // An empty page that says has_more: no object to start after.
      reasons.push({
        code: 'COMPLETENESS_UNKNOWN',
        message: 'has_more without an object id or next_page to continue from',
        source: SOURCE,
      });
      return { ...common, reasons };
    }
    return { ...common, reasons, continuation: { kind: 'next_cursor', cursor } };
  },
  pageParams(cursor, pageSize) {
    if (cursor === undefined) return { limit: pageSize };
    if (cursor.startsWith(SEARCH_PREFIX)) return { limit: pageSize, page: cursor.slice(SEARCH_PREFIX.length) };
    return { limit: pageSize, starting_after: cursor };
  },
});

function prefixed(page: string | undefined): string | undefined {
  return page === undefined ? undefined : `${SEARCH_PREFIX}${page}`;
}

function stripeError(e: Record<string, unknown>, original: Record<string, unknown>) {
  const type = nonEmpty(e.type) ?? 'api_error';
  const code = nonEmpty(e.code);
  const message = nonEmpty(e.message) ?? type;
  const status = typeof original.statusCode === 'number' ? original.statusCode : undefined;
  let reason: Reason['code'] = 'SOURCE_UNAVAILABLE';
  if (code === 'rate_limit' || type === 'rate_limit_error' || type === 'StripeRateLimitError' || status === 429)
    reason = 'RATE_LIMITED';
  else if (
    ['authentication_error', 'permission_error', 'StripeAuthenticationError', 'StripePermissionError'].includes(type)
  )
    reason = 'VISIBILITY_RESTRICTED';
  return { reasons: [{ code: reason, message, source: SOURCE }], error: { type, message } };
}
