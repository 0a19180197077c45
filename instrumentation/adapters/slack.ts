/**
 * Slack Web API cursor pagination (`conversations.list`, `users.list`, `conversations.history`, ...): a non-empty
 * `response_metadata.next_cursor` means more, and Slack may return fewer items than `limit`, even none, with a
 * cursor. Failures are `ok: false` with an `error` string (`ratelimited`, `invalid_cursor`, `missing_scope`, ...).
 */
import type { Continuation, Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';
import { retryAfterSeconds } from './http.ts';

export interface SlackOptions extends AdapterOptions {
  /** The field holding the list (`channels`, `members`, `messages`); default: the only array besides metadata. */
  itemsField?: string;
}

const SOURCE = 'slack';
const DENIED = new Set([
  'missing_scope',
  'not_authed',
  'invalid_auth',
  'not_in_channel',
  'access_denied',
  'account_inactive',
  'no_permission',
]);

export const slackCursor = defineAdapter<SlackOptions>({
  name: 'slackCursor',
  read(response, options) {
    // @slack/web-api throws a platform error whose `data` is the body; rate limits carry `retryAfter` (seconds).
    const body = isRecord(response) && isRecord(response.data) && 'ok' in response.data ? response.data : response;
    if (!isRecord(body) || typeof body.ok !== 'boolean') return unrecognized(body, 'not a Slack API response (ok)');
    if (!body.ok) return slackError(body, response);
    const field = options.itemsField ?? onlyArrayField(body);
    const items = field === undefined ? undefined : body[field];
    if (!Array.isArray(items)) return unrecognized(body, 'no list field (pass itemsField)');
    const meta = isRecord(body.response_metadata) ? body.response_metadata : undefined;
    const cursor = nonEmpty(meta?.next_cursor);
    if (cursor === undefined && body.has_more !== true) return { items, reasons: [] };
    const reasons: Reason[] = [
      {
        code: 'MORE_PAGES_AVAILABLE',
        message: cursor ? 'response_metadata.next_cursor is set' : 'has_more',
        source: SOURCE,
      },
    ];
    if (cursor === undefined) {
      reasons.push({ code: 'COMPLETENESS_UNKNOWN', message: 'has_more without a next_cursor', source: SOURCE });
      return { items, reasons };
    }
    return { items, reasons, continuation: { kind: 'next_cursor', cursor } };
  },
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { limit: pageSize } : { limit: pageSize, cursor };
  },
});

function onlyArrayField(o: Record<string, unknown>): string | undefined {
  const arrays = Object.keys(o).filter((k) => k !== 'response_metadata' && k !== 'warnings' && Array.isArray(o[k]));
  return arrays.length === 1 ? arrays[0] : undefined;
}

function slackError(body: Record<string, unknown>, original: unknown) {
  const error = nonEmpty(body.error) ?? 'unknown_error';
  let code: Reason['code'] = 'SOURCE_UNAVAILABLE';
  let continuation: Continuation = { kind: 'none' };
  if (error === 'ratelimited' || error === 'rate_limited') {
    code = 'RATE_LIMITED';
    const o = isRecord(original) ? original : {};
    const wait = typeof o.retryAfter === 'number' ? o.retryAfter : retryAfterSeconds(o.headers);
    if (wait !== undefined) continuation = { kind: 'retry_after', after_seconds: wait };
  } else if (error === 'invalid_cursor') code = 'CURSOR_EXPIRED';
  else if (DENIED.has(error)) code = 'VISIBILITY_RESTRICTED';
  return { reasons: [{ code, message: error, source: SOURCE }], continuation, error: { type: error, message: error } };
}
