/**
 * AWS SDK for JavaScript v3 command outputs. A page is followed by a token whose name depends on the service:
 * `NextToken` (most), `NextContinuationToken` with `IsTruncated` (S3 ListObjectsV2), `Marker`/`NextMarker` with
 * `IsTruncated` (IAM, S3 v1), `LastEvaluatedKey` (DynamoDB Query/Scan, which stops at 1 MB before filtering: an
 * empty `Items` with a `LastEvaluatedKey` is the dangerous empty page). SDK errors (`name`, `$metadata`) are read too.
 */
import type { Reason } from '../../contract/index.ts';
import type { AdapterOptions } from './adapter.ts';
import { defineAdapter, isRecord, nonEmpty, unrecognized } from './adapter.ts';

export interface AwsOptions extends AdapterOptions {
  /** The output field holding the list (e.g. `Contents`, `Users`, `Items`); default: the output's only array. */
  itemsField?: string;
}

/** Output token field → the input parameter that takes it back. */
const TOKENS: readonly (readonly [string, string])[] = [
  ['NextContinuationToken', 'ContinuationToken'],
  ['NextMarker', 'Marker'],
  ['NextToken', 'NextToken'],
  ['nextToken', 'nextToken'],
  ['NextPageToken', 'NextPageToken'],
  ['LastEvaluatedKey', 'ExclusiveStartKey'],
  ['Marker', 'Marker'],
];

const THROTTLING = new Set([
  'ThrottlingException',
  'Throttling',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ProvisionedThroughputExceededException',
  'SlowDown',
]);
const DENIED = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'UnauthorizedOperation',
  'UnrecognizedClientException',
]);
const EXPIRED = new Set([
  'InvalidNextTokenException',
  'ExpiredNextTokenException',
  'InvalidPaginationToken',
  'ExpiredTokenException',
]);
const SOURCE = 'aws';

export const awsPagination = defineAdapter<AwsOptions>({
  name: 'awsPagination',
  read(response, options) {
    if (!isRecord(response)) return unrecognized(response, 'not an AWS SDK output');
    if (response instanceof Error || typeof response.$fault === 'string') {
      return sdkError(response);
    }
    const field = options.itemsField ?? onlyArrayField(response);
    const items = field === undefined ? undefined : response[field];
    if (!Array.isArray(items)) return unrecognized(response, 'no list field (pass itemsField)');
    const found = TOKENS.find(([out]) => out !== 'Marker' && tokenValue(response[out]) !== undefined);
    // IAM returns the next `Marker` only when IsTruncated; S3 v1 echoes the request's Marker: trust IsTruncated.
    const marker = response.IsTruncated === true && found === undefined ? tokenValue(response.Marker) : undefined;
    const tokenField = found?.[0] ?? (marker !== undefined ? 'Marker' : undefined);
    const token = found ? tokenValue(response[found[0]]) : marker;
    const truncated = response.IsTruncated === true || token !== undefined;
    if (!truncated) return { items, reasons: [] };
    const reasons: Reason[] = [];
    const scanned = typeof response.ScannedCount === 'number' ? ` (${response.ScannedCount} scanned)` : '';
    reasons.push({
      code: 'MORE_PAGES_AVAILABLE',
      message: `${tokenField ?? 'IsTruncated'} is set${scanned}`,
      source: SOURCE,
    });
    if (token === undefined || tokenField === undefined) {
      reasons.push({
        code: 'COMPLETENESS_UNKNOWN',
        message: 'IsTruncated without a token to continue from',
        source: SOURCE,
      });
      return { items, reasons };
    }
    return {
      items,
      reasons,
      continuation: { kind: 'next_cursor', cursor: JSON.stringify([inputFor(tokenField), token]) },
    };
  },
  // The cursor carries the input parameter's name: each service names its token differently.
  pageParams(cursor, pageSize) {
    if (cursor === undefined) return { MaxResults: pageSize };
    try {
      const [param, value] = JSON.parse(cursor) as [unknown, unknown];
      if (typeof param === 'string') return { MaxResults: pageSize, [param]: value };
    } catch {
      // fall through: a bare token
    }
    return { MaxResults: pageSize, NextToken: cursor };
  },
});

function onlyArrayField(o: Record<string, unknown>): string | undefined {
  const arrays = Object.keys(o).filter(
    (k) => Array.isArray(o[k]) && !['CommonPrefixes', 'FailedEntries', 'UnprocessedKeys'].includes(k),
  );
  return arrays.length === 1 ? arrays[0] : undefined;
}

/** A token: a non-empty string, or a DynamoDB key (an object). */
function tokenValue(v: unknown): string | Record<string, unknown> | undefined {
  if (isRecord(v)) return Object.keys(v).length > 0 ? v : undefined;
  return nonEmpty(v);
}

function inputFor(outputField: string): string {
  return TOKENS.find(([out]) => out === outputField)?.[1] ?? outputField;
}

function sdkError(e: Record<string, unknown>) {
  const name = typeof e.name === 'string' ? e.name : 'AwsError';
  const message = typeof e.message === 'string' ? e.message : name;
  const meta = isRecord(e.$metadata) ? e.$metadata : undefined;
  const status = typeof meta?.httpStatusCode === 'number' ? meta.httpStatusCode : undefined;
  let code: Reason['code'] = 'SOURCE_UNAVAILABLE';
  if (THROTTLING.has(name) || status === 429) code = 'RATE_LIMITED';
  else if (DENIED.has(name) || status === 403) code = 'VISIBILITY_RESTRICTED';
  else if (EXPIRED.has(name)) code = 'CURSOR_EXPIRED';
  return { reasons: [{ code, message, source: SOURCE }], error: { type: name, message } };
}
