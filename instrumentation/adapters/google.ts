/**
 * Google APIs list methods (AIP-158 pagination, AIP-217 unreachable resources): a non-empty `nextPageToken` means
 * more (an empty or absent one is the end); `unreachable` lists the locations that did not answer, whose items are
 * missing even on the last page. Errors are `{ error: { code, status, message } }` (AIP-193).
 */
import type { Continuation, Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

export interface GoogleOptions extends AdapterOptions {
  /** The response field holding the list (e.g. `instances`, `files`); default: the only array besides `unreachable`. */
  itemsField?: string;
}

const SOURCE = 'google';

export const googleList = defineAdapter<GoogleOptions>({
  name: 'googleList',
  read(response, options) {
    // googleapis (gaxios) responses are `{ data, status, headers }`; the Cloud client libraries return the body.
    const body = isRecord(response) && isRecord(response.data) && 'status' in response ? response.data : response;
    if (isRecord(body) && isRecord(body.error)) return apiError(body.error);
    if (!isRecord(body)) return unrecognized(body, 'not a list response');
    const field = options.itemsField ?? onlyArrayField(body);
    // An empty list is often omitted from the JSON entirely.
    const raw =
      field === undefined
        ? Object.keys(body).every((k) => ['nextPageToken', 'unreachable', 'kind', 'etag', 'totalSize'].includes(k))
          ? []
          : undefined
        : body[field];
    if (!Array.isArray(raw)) return unrecognized(body, 'no list field (pass itemsField)');
    const reasons: Reason[] = [];
    const unreachable = Array.isArray(body.unreachable) ? body.unreachable.filter((u) => typeof u === 'string') : [];
    for (const location of unreachable) {
      reasons.push({ code: 'SOURCE_UNAVAILABLE', message: 'listed in unreachable', source: location });
    }
    const token = nonEmpty(body.nextPageToken);
    if (token === undefined) return { items: raw, reasons };
    reasons.push({ code: 'MORE_PAGES_AVAILABLE', message: 'nextPageToken is set', source: SOURCE });
    return { items: raw, reasons, continuation: { kind: 'next_cursor', cursor: token } };
  },
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { pageSize } : { pageSize, pageToken: cursor };
  },
});

function onlyArrayField(o: Record<string, unknown>): string | undefined {
  const arrays = Object.keys(o).filter((k) => k !== 'unreachable' && Array.isArray(o[k]));
  return arrays.length === 1 ? arrays[0] : undefined;
}

function apiError(error: Record<string, unknown>) {
  const status = nonEmpty(error.status) ?? '';
  const httpCode = typeof error.code === 'number' ? error.code : undefined;
  const message = nonEmpty(error.message) ?? status;
  let code: Reason['code'] = 'SOURCE_UNAVAILABLE';
  let continuation: Continuation = { kind: 'none' };
  if (status === 'RESOURCE_EXHAUSTED' || httpCode === 429) code = 'RATE_LIMITED';
  else if (status === 'PERMISSION_DENIED' || status === 'UNAUTHENTICATED' || httpCode === 403 || httpCode === 401)
    code = 'VISIBILITY_RESTRICTED';
  else if (status === 'DEADLINE_EXCEEDED' || httpCode === 504) {
    code = 'TIME_BUDGET_EXCEEDED';
    continuation = { kind: 'retry_with_deadline' };
  }
  return {
    reasons: [{ code, message, source: SOURCE }],
    continuation,
    error: { type: status || `http_${httpCode ?? 'error'}`, message },
  };
}
