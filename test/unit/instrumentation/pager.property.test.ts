import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ToolResultSchema } from '../../../contract/index.ts';
import { collectAllPages } from '../../../instrumentation/pager.ts';
import { FakeClock } from './fixtures/fake-clock.ts';
import type { Disruption, DisruptionKind, FakeSourceOptions } from './fixtures/paginated-source.ts';
import { FakePaginatedSource } from './fixtures/paginated-source.ts';

const RUNS = 120;
const KINDS: DisruptionKind[] = [
  'insert',
  'delete',
  'reorder',
  'expire',
  'silent_restart',
  'shard_fail',
  'revoke',
  'hang',
  'throw',
  'rate_limit',
];

const disruption = fc.record({
  beforePage: fc.oneof(fc.integer({ min: 0, max: 4 }), fc.integer({ min: 0, max: 25 })),
  kind: fc.constantFrom(...KINDS),
  pick: fc.nat({ max: 1000 }),
}) as fc.Arbitrary<Disruption>;

const budget = fc.oneof(
  fc.record({
    maxPages: fc.integer({ min: 1, max: 40 }),
    maxItems: fc.integer({ min: 1, max: 300 }),
    timeBudgetMs: fc.integer({ min: 1, max: 20_000 }),
  }),
  // Generous budgets, so that many scans run to their end and the completeness claim itself is tested.
  fc.constant({ maxPages: 1_000, maxItems: 1_000, timeBudgetMs: 1e9 }),
);

const scenario = fc.record({
  // Often larger than every limit (maxItems <= 300, pages * page size).
  size: fc.oneof(fc.integer({ min: 0, max: 20 }), fc.integer({ min: 150, max: 350 })),
  mode: fc.constantFrom<'snapshot' | 'live'>('snapshot', 'live'),
  pageSize: fc.integer({ min: 1, max: 60 }),
  serverMaxPage: fc.integer({ min: 1, max: 80 }),
  shortBy: fc.array(fc.integer({ min: 0, max: 70 }), { minLength: 1, maxLength: 6 }),
  shards: fc.integer({ min: 1, max: 4 }),
  disruptions: fc.oneof(fc.constant([]), fc.array(disruption, { minLength: 1, maxLength: 3 })),
  latencyMs: fc.array(fc.integer({ min: 0, max: 800 }), { minLength: 1, maxLength: 4 }),
  expiry: fc.constantFrom<'error' | 'partial' | 'throw'>('error', 'partial', 'throw'),
  // Without item ids the collector cannot notice duplicates: its other checks must suffice.
  withItemId: fc.boolean(),
  budget,
});

type Scenario = typeof scenario extends fc.Arbitrary<infer S> ? S : never;

async function run(s: Scenario) {
  const clock = new FakeClock();
  const options: FakeSourceOptions = {
    ids: Array.from({ length: s.size }, (_, i) => `acct${i}`),
    mode: s.mode,
    serverMaxPage: s.serverMaxPage,
    shortBy: s.shortBy,
    shards: s.shards,
    disruptions: s.disruptions,
    clock,
    latencyMs: s.latencyMs,
    expiry: s.expiry,
  };
  const source = new FakePaginatedSource(options);
  const result = await collectAllPages<string>({
    fetchPage: source.fetchPage,
    pageSize: s.pageSize,
    budget: s.budget,
    ...(s.withItemId ? { itemId: (id: string) => id } : {}),
    clock,
  });
  return { result, source, clock };
}

test('declares complete only after counting every item of the declared snapshot', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      const { result, source, clock } = await run(s);
      assert.ok(ToolResultSchema.safeParse(result).success, 'the collector always returns a valid envelope');
      assert.equal(clock.pendingTimers, 0, 'the deadline timer is always cleared');
      assert.ok(result.items !== undefined && result.items.length <= s.budget.maxItems, 'item budget respected');
      assert.ok((result.pagination?.pages ?? 0) <= s.budget.maxPages, 'page budget respected');
      if (!result.completeness.complete) {
        assert.ok(result.completeness.reasons.length > 0, 'an incomplete answer names a reason');
        return;
      }
      if (s.mode === 'snapshot') {
        const token = result.scope?.snapshot;
        assert.ok(token, 'a complete multi-page answer names its snapshot');
        assert.deepEqual(result.items, source.snapshot(token), 'complete means every item of that snapshot');
      } else {
        assert.equal(result.pagination?.pages, 1, 'without a snapshot only a single page can be complete');
        assert.deepEqual(result.items, source.liveAtPage[0], 'that page is the whole collection');
      }
    }),
    { numRuns: RUNS },
  );
});

test('never restarts a scan silently, whatever the source does', async () => {
  await fc.assert(
    fc.asyncProperty(scenario, async (s) => {
      const { source } = await run(s);
      assert.ok(source.firstPageRequests <= 1, 'at most one request without a cursor');
    }),
    { numRuns: RUNS },
  );
});

test('names CLIENT_LIMIT_REACHED when its own budget stops a healthy scan', async () => {
  const healthy = scenario.map((s) => ({ ...s, mode: 'snapshot' as const, disruptions: [] }));
  await fc.assert(
    fc.asyncProperty(healthy, async (s) => {
      const { result } = await run(s);
      if (result.completeness.complete) return;
      assert.deepEqual(
        result.completeness.reasons.map((r) => r.code),
        ['CLIENT_LIMIT_REACHED'],
        'a healthy source stopped early: the only reason is the collector itself',
      );
    }),
    { numRuns: RUNS },
  );
});

test('completes a healthy snapshot scan within a sufficient budget, short and empty pages included', async () => {
  const healthy = scenario.map((s) => ({
    ...s,
    mode: 'snapshot' as const,
    disruptions: [],
    // Short pages may be empty but the server always makes progress over a cycle.
    shortBy: [...s.shortBy, 0],
    budget: { maxPages: 100_000, maxItems: 100_000, timeBudgetMs: 1e12 },
  }));
  await fc.assert(
    fc.asyncProperty(healthy, async (s) => {
      const { result, source } = await run(s);
      assert.equal(result.completeness.complete, true, JSON.stringify(result.completeness));
      assert.deepEqual(result.items, source.snapshot(result.scope?.snapshot ?? ''));
    }),
    { numRuns: RUNS },
  );
});

/** What each disruption, alone and inside the scan, must produce. */
const EXPECTED: Record<DisruptionKind, { complete: boolean; reason?: string }> = {
  // A snapshot pins the items: changes to the live collection between pages do not touch the scan.
  insert: { complete: true },
  delete: { complete: true },
  reorder: { complete: true },
  expire: { complete: false, reason: 'CURSOR_EXPIRED' },
  silent_restart: { complete: false, reason: 'COMPLETENESS_UNKNOWN' },
  shard_fail: { complete: false, reason: 'SOURCE_UNAVAILABLE' },
  revoke: { complete: false, reason: 'VISIBILITY_RESTRICTED' },
  hang: { complete: false, reason: 'CLIENT_LIMIT_REACHED' },
  throw: { complete: false, reason: 'SOURCE_UNAVAILABLE' },
  rate_limit: { complete: false, reason: 'RATE_LIMITED' },
};

const single = fc
  .record({
    kind: fc.constantFrom(...KINDS),
    mode: fc.constantFrom<'snapshot' | 'live'>('snapshot', 'live'),
    pageSize: fc.integer({ min: 1, max: 30 }),
    pagesAtLeast: fc.integer({ min: 2, max: 8 }),
    extra: fc.nat({ max: 30 }),
    shortBy: fc.array(fc.integer({ min: 0, max: 40 }), { minLength: 1, maxLength: 4 }),
    shards: fc.integer({ min: 1, max: 4 }),
    pick: fc.nat({ max: 1000 }),
    at: fc.nat({ max: 1000 }),
    expiry: fc.constantFrom<'error' | 'partial' | 'throw'>('error', 'partial', 'throw'),
    withItemId: fc.boolean(),
  })
  .map((g) => {
    const size = g.pageSize * g.pagesAtLeast + g.extra;
    // Pages needed are at least ceil(size / pageSize): a disruption before one of those pages is always reached.
    const beforePage = 1 + (g.at % (Math.ceil(size / g.pageSize) - 1));
    const s: Scenario = {
      size,
      mode: g.mode,
      pageSize: g.pageSize,
      serverMaxPage: g.pageSize,
      shortBy: [...g.shortBy, 0],
      shards: g.shards,
      disruptions: [{ beforePage, kind: g.kind, pick: g.pick }],
      latencyMs: [1],
      expiry: g.expiry,
      withItemId: g.withItemId,
      budget: { maxPages: 100_000, maxItems: 100_000, timeBudgetMs: 60_000 },
    };
    return { s, kind: g.kind, beforePage };
  });

test('each mid-scan disruption (change, expiry, restart, shard failure, revocation, hang, error, rate limit) gives its documented answer', async () => {
  await fc.assert(
    fc.asyncProperty(single, async ({ s, kind }) => {
      const { result, source } = await run(s);
      const codes = result.completeness.reasons.map((r) => r.code);
      if (s.mode === 'live') {
        // Without a snapshot nothing pins the pages: a multi-page scan is never complete.
        assert.equal(result.completeness.complete, false, `live ${kind}: ${codes}`);
      } else {
        const expected = EXPECTED[kind];
        assert.equal(result.completeness.complete, expected.complete, `${kind}: ${codes}`);
        if (expected.reason) assert.ok(codes.includes(expected.reason as never), `${kind}: ${codes}`);
      }
      assert.equal(source.firstPageRequests, 1, 'never restarted');
      const first = source.snapshot('snap-1');
      if (first) {
        for (const id of result.items ?? [])
          assert.ok(first.includes(id), `item ${id} comes from the first snapshot only`);
      }
    }),
    { numRuns: 200 },
  );
});
