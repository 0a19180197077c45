/**
 * Kubernetes list responses (`PodList`, ...) read in chunks with `limit`: a non-empty `metadata.continue` means
 * more, `metadata.remainingItemCount` says how many, and every chunk comes from the first one's
 * `metadata.resourceVersion` (the snapshot). An expired continue token is a `Status` with code 410 (`Expired`):
 * CURSOR_EXPIRED, and the list must be restarted by the caller.
 */
import type { Continuation, Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

const SOURCE = 'kubernetes';

export const kubernetesList = defineAdapter<AdapterOptions>({
  name: 'kubernetesList',
  read(response) {
    // @kubernetes/client-node throws an ApiException whose `body` (or `response.body`) is the Status.
    const value = statusBody(response) ?? response;
    if (!isRecord(value)) return unrecognized(value, 'not a Kubernetes object');
    if (value.kind === 'Status') return status(value);
    const metadata = isRecord(value.metadata) ? value.metadata : undefined;
    if (!Array.isArray(value.items) || metadata === undefined) {
      return unrecognized(value, 'not a Kubernetes list (items, metadata)');
    }
    const kind = typeof value.kind === 'string' ? value.kind : undefined;
    const resource = kind?.endsWith('List') ? kind.slice(0, -'List'.length) : kind;
    const snapshot = nonEmpty(metadata.resourceVersion);
    const next = nonEmpty(metadata.continue);
    const common = { items: value.items, ...(snapshot ? { snapshot } : {}), ...(resource ? { resource } : {}) };
    if (next === undefined) return { ...common, reasons: [] };
    const remaining = typeof metadata.remainingItemCount === 'number' ? metadata.remainingItemCount : undefined;
    return {
      ...common,
      reasons: [
        {
          code: 'MORE_PAGES_AVAILABLE',
          message: remaining !== undefined ? `${remaining} more items after this chunk` : 'metadata.continue is set',
          source: SOURCE,
        },
      ],
      continuation: { kind: 'next_cursor', cursor: next },
    };
  },
  pageParams(cursor, pageSize) {
    return cursor === undefined ? { limit: pageSize } : { limit: pageSize, _continue: cursor };
  },
});

function statusBody(value: unknown): Record<string, unknown> | undefined {
  if (!isRecord(value)) return undefined;
  for (const candidate of [value.body, isRecord(value.response) ? value.response.body : undefined]) {
    const parsed = typeof candidate === 'string' ? safeJson(candidate) : candidate;
    if (isRecord(parsed) && parsed.kind === 'Status') return parsed;
  }
  return undefined;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function status(s: Record<string, unknown>) {
  const code = typeof s.code === 'number' ? s.code : undefined;
  const reasonName = typeof s.reason === 'string' ? s.reason : '';
  const message = typeof s.message === 'string' ? s.message : reasonName;
  if (s.status === 'Success') return unrecognized(s, 'a Success status is not a list');
  const details = isRecord(s.details) ? s.details : undefined;
  let reason: Reason;
  let continuation: Continuation = { kind: 'none' };
  if (code === 410 || reasonName === 'Expired' || reasonName === 'Gone') {
    reason = { code: 'CURSOR_EXPIRED', message, source: SOURCE };
  } else if (code === 429 || reasonName === 'TooManyRequests') {
    reason = { code: 'RATE_LIMITED', message, source: SOURCE };
    const wait = details && typeof details.retryAfterSeconds === 'number' ? details.retryAfterSeconds : undefined;
    if (wait !== undefined) continuation = { kind: 'retry_after', after_seconds: wait };
  } else if (code === 401 || code === 403 || reasonName === 'Forbidden' || reasonName === 'Unauthorized') {
    reason = { code: 'VISIBILITY_RESTRICTED', message, source: SOURCE };
  } else if (code === 504 || reasonName === 'Timeout') {
    reason = { code: 'TIME_BUDGET_EXCEEDED', message, source: SOURCE };
    continuation = { kind: 'retry_with_deadline' };
  } else {
    reason = { code: 'SOURCE_UNAVAILABLE', message, source: SOURCE };
  }
  return { reasons: [reason], continuation, error: { type: reasonName || `status_${code ?? 'unknown'}`, message } };
}
