/**
 * HTTP pieces the REST adapters share: case-insensitive header lookup over the shapes clients return (fetch's
 * `Headers`, Octokit's and axios's plain objects), the RFC 8288 `Link` header, and what an HTTP failure means.
 */
import type { Continuation, Reason } from '../../contract/index.ts';
import { isRecord } from './adapter.ts';

/** The header's value, or undefined; repeated headers are joined with ", " as RFC 9110 allows. */
export function header(headers: unknown, name: string): string | undefined {
  if (headers === null || typeof headers !== 'object') return undefined;
  const get = (headers as { get?: unknown }).get;
  if (typeof get === 'function') {
    const v: unknown = get.call(headers, name);
    return typeof v === 'string' ? v : undefined;
  }
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) {
    if (k.toLowerCase() !== wanted) continue;
    if (typeof v === 'string') return v;
    if (typeof v === 'number') return String(v);
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) return v.join(', ');
  }
  return undefined;
}

export interface LinkValue {
  url: string;
  rels: string[];
}

/**
 * RFC 8288 section 3: `<uri>; rel="next"; title="x", <uri>; rel="prev last"`. Commas and semicolons inside the
 * `<...>` or inside quotes do not split. A value that is not a link is skipped, never guessed at.
 */
export function parseLinkHeader(value: string): LinkValue[] {
  const out: LinkValue[] = [];
  let i = 0;
  const n = value.length;
  while (i < n) {
    const open = value.indexOf('<', i);
    if (open < 0) break;
    const close = value.indexOf('>', open + 1);
    if (close < 0) break;
    const url = value.slice(open + 1, close).trim();
    i = close + 1;
    const rels: string[] = [];
    // Parameters up to the next comma that is outside quotes.
    while (i < n && value[i] !== ',') {
      if (value[i] !== ';') {
        i += 1;
        continue;
      }
      i += 1;
      const eq = value.indexOf('=', i);
      const nextSemi = nextDelimiter(value, i);
      if (eq < 0 || eq > nextSemi) {
        i = nextSemi;
        continue;
      }
      const key = value.slice(i, eq).trim().toLowerCase();
      let j = eq + 1;
      while (j < n && value[j] === ' ') j += 1;
      let param: string;
      if (value[j] === '"') {
        let k = j + 1;
        let buf = '';
        while (k < n && value[k] !== '"') {
          if (value[k] === '\\' && k + 1 < n) k += 1;
          buf += value[k];
          k += 1;
        }
        param = buf;
        i = k + 1;
      } else {
        const end = nextDelimiter(value, j);
        param = value.slice(j, end).trim();
        i = end;
      }
      if (key === 'rel') rels.push(...param.toLowerCase().split(/\s+/).filter(Boolean));
    }
    if (url.length > 0) out.push({ url, rels });
    i += 1;
  }
  return out;
}

function nextDelimiter(value: string, from: number): number {
  for (let k = from; k < value.length; k++) if (value[k] === ';' || value[k] === ',') return k;
  return value.length;
}

/** The `rel="next"` target of a Link header, if any. */
export function nextLink(headers: unknown): string | undefined {
  const link = header(headers, 'link');
  if (!link) return undefined;
  return parseLinkHeader(link).find((l) => l.rels.includes('next'))?.url;
}

/** The query parameters of a next-page URL, as request parameters (digits become numbers). */
export function queryParams(url: string): Record<string, unknown> | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url, 'http://relative.invalid');
  } catch {
    return undefined;
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of parsed.searchParams) out[k] = /^\d{1,15}$/.test(v) ? Number(v) : v;
  return out;
}

/** Seconds to wait, from `Retry-After` (seconds or an HTTP date) or GitHub-style `x-ratelimit-reset` (epoch s). */
export function retryAfterSeconds(headers: unknown, nowMs = Date.now()): number | undefined {
  const retry = header(headers, 'retry-after');
  if (retry !== undefined) {
    if (/^\d+$/.test(retry.trim())) return Number(retry.trim());
    const at = Date.parse(retry);
    if (!Number.isNaN(at)) return Math.max(0, Math.ceil((at - nowMs) / 1000));
  }
  const reset = header(headers, 'x-ratelimit-reset');
  if (reset !== undefined && /^\d+$/.test(reset.trim()))
    return Math.max(0, Number(reset.trim()) - Math.floor(nowMs / 1000));
  return undefined;
}

/** A response-like value: Octokit's `{ status, headers, data }`, or its RequestError (`status`, `response`). */
export interface HttpParts {
  status: number | undefined;
  headers: unknown;
  body: unknown;
}

export function httpParts(value: unknown): HttpParts {
  if (!isRecord(value)) return { status: undefined, headers: undefined, body: value };
  const response = isRecord(value.response) ? value.response : undefined;
  const status =
    typeof value.status === 'number'
      ? value.status
      : typeof response?.status === 'number'
        ? response.status
        : undefined;
  const headers = value.headers ?? response?.headers;
  const body =
    'data' in value
      ? value.data
      : 'body' in value
        ? value.body
        : response && 'data' in response
          ? response.data
          : value;
  return { status, headers, body };
}

/** What an HTTP failure status means for completeness; undefined for a success. */
export function httpFailure(
  status: number | undefined,
  headers: unknown,
  source: string,
): { reason: Reason; continuation: Continuation } | undefined {
  if (status === undefined || status < 400) return undefined;
  const wait = retryAfterSeconds(headers);
  const exhausted = header(headers, 'x-ratelimit-remaining') === '0';
  if (status === 429 || (status === 403 && exhausted)) {
    return {
      reason: { code: 'RATE_LIMITED', message: `HTTP ${status}: rate limited`, source },
      continuation: wait !== undefined ? { kind: 'retry_after', after_seconds: wait } : { kind: 'none' },
    };
  }
  if (status === 401 || status === 403) {
    return {
      reason: { code: 'VISIBILITY_RESTRICTED', message: `HTTP ${status}: the credential may not read this`, source },
      continuation: { kind: 'none' },
    };
  }
  if (status === 410) {
    return { reason: { code: 'CURSOR_EXPIRED', message: 'HTTP 410 Gone', source }, continuation: { kind: 'none' } };
  }
  if (status === 408 || status === 504) {
    return {
      reason: { code: 'TIME_BUDGET_EXCEEDED', message: `HTTP ${status}: timed out`, source },
      continuation: { kind: 'retry_with_deadline' },
    };
  }
  return {
    reason: { code: 'SOURCE_UNAVAILABLE', message: `HTTP ${status}`, source },
    continuation: wait !== undefined ? { kind: 'retry_after', after_seconds: wait } : { kind: 'none' },
  };
}
