/**
 * Where a read carries its cursor: the argument names paging APIs use, and what counts as a cursor (a first page may
 * name itself: page 1, offset 0). Shared by the library's cursor locators (instrumentation/cursor.ts) and the ingest,
 * which links the pages other emitters recorded (ingest/emitters/traversals.ts).
 */

/**
 * Argument names that hold a continuation token in the APIs and MCP servers agents page through (GitHub, Slack,
 * Notion, Stripe, Google, AWS, Kubernetes, GraphQL, Elasticsearch). Page numbers and offsets are not among them:
 * a tool paged by number says so in its policy (`cursor: '/page'`).
 */
export const CURSOR_ARGUMENT_NAMES: readonly string[] = [
  'cursor',
  'next_cursor',
  'nextCursor',
  'page_token',
  'pageToken',
  'next_page_token',
  'nextPageToken',
  'continuation_token',
  'continuationToken',
  'next_token',
  'nextToken',
  'NextToken',
  'after',
  'starting_after',
  'start_cursor',
  'continue',
  '_continue',
  'marker',
  'Marker',
  'scroll_id',
  'search_after',
];

/** A first page may name itself: page 1, offset 0. */
export function cursorText(value: unknown): string | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value > 1 ? String(value) : undefined;
  if (typeof value === 'string') return value.length === 0 || value === '0' || value === '1' ? undefined : value;
  if (Array.isArray(value) && value.length > 0) return JSON.stringify(value);
  return undefined;
}
