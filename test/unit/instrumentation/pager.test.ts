import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ToolResult } from '../../../contract/index.ts';
import type { PageRequest } from '../../../instrumentation/index.ts';
import {
  collectAllPages,
  completeResult,
  errorResult,
  partialResult,
  SourceError,
  warning,
} from '../../../instrumentation/index.ts';
import { FakeClock } from './fixtures/fake-clock.ts';
import type { Disruption, FakeSourceOptions } from './fixtures/paginated-source.ts';
import { FakePaginatedSource } from './fixtures/paginated-source.ts';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `acct${i}`);

function source(overrides: Partial<FakeSourceOptions> & { disruptions?: Disruption[] } = {}) {
  const clock = overrides.clock ?? new FakeClock();
  const src = new FakePaginatedSource({
    ids: ids(10),
    mode: 'snapshot',
    serverMaxPage: 3,
    shortBy: [0],
    shards: 2,
    disruptions: [],
    latencyMs: [10],
    expiry: 'error',
    ...overrides,
    clock,
  });
  return { src, clock };
}

const codes = (r: ToolResult) => r.completeness.reasons.map((x) => x.code);

test('a healthy scan over a snapshot is complete and counts every item', async () => {
  const { src, clock } = source();
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.equal(r.status, 'complete');
  assert.deepEqual(r.items, ids(10));
  assert.deepEqual(r.pagination, { pages: 4, short_pages: 0, requested_page_size: 3 });
  assert.equal(r.scope?.snapshot, 'snap-1');
});

test('stops at its page budget and says CLIENT_LIMIT_REACHED with the cursor to go on', async () => {
  const { src, clock } = source();
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock, budget: { maxPages: 2 } });
  assert.equal(r.status, 'partial');
  assert.deepEqual(codes(r), ['CLIENT_LIMIT_REACHED']);
  assert.equal(r.completeness.reasons[0]?.limit, 2);
  assert.equal(r.completeness.continuation.kind, 'next_cursor');
  assert.deepEqual(r.items, ids(6));
});

test('stops at its item budget inside a page and says CLIENT_LIMIT_REACHED', async () => {
  const { src, clock } = source();
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock, budget: { maxItems: 4 } });
  assert.deepEqual(codes(r), ['CLIENT_LIMIT_REACHED']);
  assert.deepEqual(r.items, ids(4));
  // The cursor would skip the items cut from the page: the honest continuation is a narrower query.
  assert.equal(r.completeness.continuation.kind, 'narrow_query');
});

test('stops at the deadline (an input) even when the source never answers', async () => {
  const { src, clock } = source({ disruptions: [{ beforePage: 2, kind: 'hang', pick: 0 }] });
  const r = await collectAllPages<string>({
    fetchPage: src.fetchPage,
    pageSize: 3,
    clock,
    budget: { deadline: clock.now() + 5_000 },
  });
  assert.deepEqual(codes(r), ['CLIENT_LIMIT_REACHED']);
  assert.equal(r.completeness.continuation.kind, 'retry_with_deadline');
  assert.deepEqual(r.items, ids(6));
  assert.equal(clock.pendingTimers, 0);
});

test('a time budget already spent stops before the first page', async () => {
  const { src, clock } = source();
  const r = await collectAllPages<string>({
    fetchPage: src.fetchPage,
    pageSize: 3,
    clock,
    budget: { deadline: clock.now() },
  });
  assert.deepEqual(codes(r), ['CLIENT_LIMIT_REACHED']);
  assert.equal(src.pagesServed, 0);
});

test('reports short and empty pages without treating them as the end', async () => {
  const { src, clock } = source({ shortBy: [0, 2, 3, 0] });
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.equal(r.completeness.complete, true);
  assert.deepEqual(r.items, ids(10));
  assert.ok((r.pagination?.short_pages ?? 0) >= 2, JSON.stringify(r.pagination));
});

test('never restarts after CURSOR_EXPIRED: returns what it had, incomplete, with no continuation', async () => {
  for (const expiry of ['error', 'partial', 'throw'] as const) {
    const { src, clock } = source({ expiry, disruptions: [{ beforePage: 2, kind: 'expire', pick: 0 }] });
    const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
    assert.equal(r.status, 'partial', expiry);
    assert.deepEqual(codes(r), ['CURSOR_EXPIRED'], expiry);
    assert.equal(r.completeness.continuation.kind, 'none');
    assert.deepEqual(r.items, ids(6));
    assert.equal(src.firstPageRequests, 1);
  }
});

test('never merges pages of two snapshots into one answer', async () => {
  const { src, clock } = source({ disruptions: [{ beforePage: 2, kind: 'silent_restart', pick: 0 }] });
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.equal(r.completeness.complete, false);
  assert.deepEqual(codes(r), ['COMPLETENESS_UNKNOWN']);
  assert.deepEqual(r.items, ids(6), 'the pages of the new snapshot are not appended');
  assert.equal(r.scope?.snapshot, 'snap-1');
});

test('a shard failing on one page keeps the scan incomplete even if later pages are whole', async () => {
  const { src, clock } = source({ disruptions: [{ beforePage: 1, kind: 'shard_fail', pick: 1 }] });
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.equal(r.completeness.complete, false);
  assert.deepEqual(r.completeness.reasons, [
    { code: 'SOURCE_UNAVAILABLE', source: 'shard-1', message: 'shard did not answer' },
  ]);
  // Page 2 (acct3..acct5) lost shard 1's odd ids; the other shard answered and later pages were whole.
  assert.deepEqual(
    r.items,
    ids(10).filter((id) => id !== 'acct3' && id !== 'acct5'),
  );
});

test('a permission revoked mid-scan keeps VISIBILITY_RESTRICTED', async () => {
  const { src, clock } = source({ disruptions: [{ beforePage: 1, kind: 'revoke', pick: 0 }] });
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.deepEqual(codes(r), ['VISIBILITY_RESTRICTED']);
});

test('inserts and deletes between pages do not disturb a snapshot scan', async () => {
  const { src, clock } = source({
    disruptions: [
      { beforePage: 1, kind: 'insert', pick: 0 },
      { beforePage: 2, kind: 'delete', pick: 0 },
      { beforePage: 2, kind: 'reorder', pick: 3 },
    ],
  });
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.equal(r.completeness.complete, true);
  assert.deepEqual(r.items, ids(10));
});

test('a multi-page scan without a snapshot is not complete (items may move between pages)', async () => {
  const { src, clock } = source({ mode: 'live' });
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.deepEqual(codes(r), ['COMPLETENESS_UNKNOWN']);
  const { src: stable, clock: c2 } = source({ mode: 'live' });
  const declared = await collectAllPages<string>({
    fetchPage: stable.fetchPage,
    pageSize: 3,
    clock: c2,
    requireSnapshot: false,
  });
  assert.equal(declared.completeness.complete, true, 'unless the caller declares the source stable');
});

test('an offset scan that shifts under deletes shows up as an item returned twice', async () => {
  const { src, clock } = source({ mode: 'live', disruptions: [{ beforePage: 1, kind: 'insert', pick: 0 }] });
  const r = await collectAllPages<string>({
    fetchPage: src.fetchPage,
    pageSize: 3,
    clock,
    itemId: (id) => id,
    requireSnapshot: false,
  });
  assert.equal(r.completeness.complete, false);
  assert.match(r.completeness.reasons[0]?.message ?? '', /returned twice/);
});

test('a repeated cursor is a loop, not the end', async () => {
  const page = partialResult({
    items: ['a'],
    reasons: ['MORE_PAGES_AVAILABLE'],
    continuation: { kind: 'next_cursor', cursor: 'same' },
    scope: { resource: 'r', snapshot: 's' },
  });
  const r = await collectAllPages({ fetchPage: async () => page, pageSize: 1 });
  assert.deepEqual(codes(r), ['COMPLETENESS_UNKNOWN']);
  assert.equal(r.pagination?.pages, 2);
});

test('a page with no contract stops the scan as COMPLETENESS_UNKNOWN', async () => {
  const r = await collectAllPages({ fetchPage: async () => ['a', 'b'], pageSize: 2 });
  assert.deepEqual(codes(r), ['COMPLETENESS_UNKNOWN']);
  assert.deepEqual(r.items, ['a', 'b']);
});

test('a failing first page is an error result; a later failure keeps the items as partial', async () => {
  const { src, clock } = source({ disruptions: [{ beforePage: 0, kind: 'throw', pick: 0 }] });
  const first = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.equal(first.status, 'error');
  assert.deepEqual(codes(first), ['SOURCE_UNAVAILABLE']);
  const { src: s2, clock: c2 } = source({ disruptions: [{ beforePage: 2, kind: 'throw', pick: 0 }] });
  const later = await collectAllPages<string>({ fetchPage: s2.fetchPage, pageSize: 3, clock: c2 });
  assert.equal(later.status, 'partial');
  assert.deepEqual(later.items, ids(6));
});

test('an error page from the source keeps its reasons', async () => {
  const r = await collectAllPages({
    fetchPage: async () => errorResult({ type: 'quota', message: 'quota', reasons: ['RATE_LIMITED'] }),
    pageSize: 2,
  });
  assert.equal(r.status, 'error');
  assert.deepEqual(codes(r), ['RATE_LIMITED']);
});

test('RATE_LIMITED stops the scan with the retry_after continuation for the caller to resume', async () => {
  const { src, clock } = source({ disruptions: [{ beforePage: 1, kind: 'rate_limit', pick: 0 }] });
  const r = await collectAllPages<string>({ fetchPage: src.fetchPage, pageSize: 3, clock });
  assert.deepEqual(codes(r), ['RATE_LIMITED']);
  assert.equal(r.completeness.continuation.kind, 'retry_after');
  assert.ok(r.completeness.continuation.kind === 'retry_after' && r.completeness.continuation.cursor);
});

test('a SourceError names its reason and source', async () => {
  const r = await collectAllPages({
    fetchPage: async () => {
      throw new SourceError('VISIBILITY_RESTRICTED', 'token lost access', { source: 'team-b' });
    },
    pageSize: 1,
  });
  assert.deepEqual(r.completeness.reasons, [
    { code: 'VISIBILITY_RESTRICTED', message: 'token lost access', source: 'team-b' },
  ]);
});

test('aborted by the caller: CLIENT_LIMIT_REACHED, and the wait ends at once', async () => {
  const controller = new AbortController();
  const r = collectAllPages({
    fetchPage: (req: PageRequest) => {
      if (req.pageIndex === 1) queueMicrotask(() => controller.abort());
      return req.pageIndex === 0
        ? Promise.resolve(
            partialResult({
              items: ['a'],
              reasons: ['MORE_PAGES_AVAILABLE'],
              continuation: { kind: 'next_cursor', cursor: 'c1' },
              scope: { resource: 'r', snapshot: 's' },
            }),
          )
        : new Promise(() => {});
    },
    pageSize: 1,
    signal: controller.signal,
  });
  const result = await r;
  assert.deepEqual(codes(result), ['CLIENT_LIMIT_REACHED']);
  assert.deepEqual(result.items, ['a']);
});

test('keeps each page warning once, apart from the reasons', async () => {
  const w = warning('STALE_INDEX', 'accounts-index', 'lagging');
  const scope = { resource: 'r', snapshot: 's' };
  const pages: ToolResult[] = [
    { ...partialResult({ items: ['a'], reasons: ['MORE_PAGES_AVAILABLE'], scope }), warnings: [w] },
    { ...completeResult({ items: ['b'], scope }), warnings: [w] },
  ];
  for (const p of pages) {
    if (p.status === 'partial') p.completeness.continuation = { kind: 'next_cursor', cursor: 'c' };
  }
  const r = await collectAllPages({ fetchPage: async ({ pageIndex }) => pages[pageIndex], pageSize: 1 });
  assert.equal(r.completeness.complete, true, 'a warning never makes a result incomplete');
  assert.deepEqual(r.warnings, [w]);
});

test('a wrong budget fails loudly, naming every bad key', async () => {
  await assert.rejects(
    collectAllPages({ fetchPage: async () => [], pageSize: 0, budget: { maxPages: -1, maxItems: 1.5 } }),
    (err: Error) =>
      /collectAllPages\.pageSize/.test(err.message) &&
      /collectAllPages\.budget\.maxPages/.test(err.message) &&
      /collectAllPages\.budget\.maxItems/.test(err.message),
  );
});
