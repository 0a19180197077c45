import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { AccountView, Role, World } from '../../../demo/world/index.ts';
import {
  createWorld,
  defaultWorldConfig,
  InvalidCursorError,
  parseWorldConfig,
  SEARCH_INDEX_SOURCE,
  SERVICE_ACCOUNTS,
} from '../../../demo/world/index.ts';
import type { ToolResult } from '../../../instrumentation/index.ts';
import { collectAllPages, interpretToolResult } from '../../../instrumentation/index.ts';

const SEEDS = Array.from({ length: 25 }, (_, i) => i * 7919);
const reasonCodes = (r: ToolResult) => r.completeness.reasons.map((x) => x.code);

function readAll(world: World, role: Role, pageSize: number, deadline_ms?: number) {
  return collectAllPages<AccountView>({
    fetchPage: async ({ cursor, pageSize: page_size }) =>
      world.inventory.list(
        { owner: 'any', page_size, ...(cursor ? { cursor } : {}), ...(deadline_ms ? { deadline_ms } : {}) },
        role,
      ),
    pageSize,
    itemId: (a) => a.id,
  });
}

test('the same seed builds the same world, another seed another one', () => {
  const ids = (w: World) => w.inventory.accounts().map((a) => `${a.id}:${a.name}:${a.owner}:${a.shard}`);
  assert.deepEqual(ids(createWorld({ seed: 7 })), ids(createWorld({ seed: 7 })));
  assert.notDeepEqual(ids(createWorld({ seed: 7 })), ids(createWorld({ seed: 8 })));
});

test('the world holds the configured accounts, unowned and hidden ones', () => {
  const config = defaultWorldConfig();
  const world = createWorld();
  const accounts = world.inventory.accounts();
  const total = config.shards.reduce((n, s) => n + s.accounts, 0);
  assert.equal(accounts.length, total);
  for (const shard of config.shards) {
    const on = accounts.filter((a) => a.shard === shard.name);
    assert.equal(on.length, shard.accounts, shard.name);
    assert.equal(on.filter((a) => a.owner === null).length, shard.unowned, shard.name);
    assert.equal(on.filter((a) => a.restricted).length, shard.restricted, shard.name);
  }
  assert.equal(world.census().unowned.filter((a) => !a.indexed).length, config.freshUnowned);
});

test('the first search page is empty while more pages exist, for every seed (the dangerous empty page)', () => {
  for (const seed of SEEDS) {
    const page = createWorld({ seed }).search.search({ query: 'owner:none', page_size: 25 }, 'cleanup-bot');
    assert.deepEqual(page.items, [], `seed ${seed}`);
    assert.equal(page.completeness.complete, false);
    assert.deepEqual(reasonCodes(page), ['MORE_PAGES_AVAILABLE']);
    assert.equal(page.completeness.continuation.kind, 'next_cursor');
    assert.equal(page.scope?.resource, SERVICE_ACCOUNTS);
    assert.deepEqual(
      page.warnings.map((w) => [w.code, w.source]),
      [['STALE_INDEX', SEARCH_INDEX_SOURCE]],
    );
  }
});

test('the search stops at its result window and says so; a narrower query completes, still stale', async () => {
  const world = createWorld();
  const all = await collectAllPages<AccountView>({
    fetchPage: async ({ cursor, pageSize }) =>
      world.search.search({ query: 'owner:none', page_size: pageSize, ...(cursor ? { cursor } : {}) }, 'cleanup-admin'),
    pageSize: 25,
  });
  assert.equal(all.completeness.complete, false);
  assert.deepEqual(reasonCodes(all), ['RESULT_LIMIT_REACHED']);
  assert.equal(all.completeness.reasons[0]?.limit, world.config.search.resultWindow);
  assert.equal(all.completeness.continuation.kind, 'narrow_query');

  const narrow = world.search.search({ query: 'owner:none shard:ap-south-1', page_size: 50 }, 'cleanup-admin');
  assert.equal(narrow.status, 'complete');
  assert.deepEqual(
    narrow.warnings.map((w) => w.code),
    ['STALE_INDEX'],
  );
  // The stale index misses the account created after it was built.
  const fresh = world.census().unowned.filter((a) => a.shard === 'ap-south-1' && !a.indexed);
  assert.ok(fresh.length > 0);
  for (const a of fresh) assert.ok(!narrow.items?.some((i) => i.id === a.id));
});

test('a shard slower than the deadline is TIME_BUDGET_EXCEEDED with retry_with_deadline, and answers given longer', () => {
  const world = createWorld();
  const short = world.inventory.list({ owner: 'any', page_size: 100 }, 'cleanup-admin');
  assert.deepEqual(reasonCodes(short), ['TIME_BUDGET_EXCEEDED']);
  assert.equal(short.completeness.reasons[0]?.source, 'inventory-shard-ap-south-1');
  assert.deepEqual(short.completeness.continuation, { kind: 'retry_with_deadline', minimum_seconds: 2 });
  assert.ok(!short.items?.some((a) => a.shard === 'ap-south-1'));

  const long = world.inventory.list({ owner: 'any', page_size: 100, deadline_ms: 2000 }, 'cleanup-admin');
  assert.equal(long.status, 'complete');
  assert.equal(long.items?.length, world.inventory.accounts().length);
});

test('accounts hidden from the role are reported as VISIBILITY_RESTRICTED and never named', () => {
  const world = createWorld();
  const page = world.inventory.list({ owner: 'any', page_size: 100, deadline_ms: 2000 }, 'cleanup-bot');
  assert.deepEqual(reasonCodes(page), ['VISIBILITY_RESTRICTED']);
  const hidden = world.inventory.accounts().filter((a) => a.restricted);
  assert.ok(hidden.length > 0);
  const text = JSON.stringify(page);
  for (const a of hidden) assert.ok(!text.includes(a.id) && !text.includes(a.name), `${a.id} leaked`);
  assert.equal(page.scope?.visibility, 'service accounts readable by role cleanup-bot');
});

test('a complete all-pages read counts every account of the snapshot exactly once, for every seed', async () => {
  for (const seed of SEEDS) {
    const world = createWorld({ seed });
    const all = await readAll(world, 'cleanup-admin', 7, 2000);
    assert.equal(all.completeness.complete, true, `seed ${seed}`);
    const ids = all.items?.map((a) => a.id) ?? [];
    assert.deepEqual(
      ids,
      world.inventory.accounts().map((a) => a.id),
    );
    assert.equal(new Set(ids).size, ids.length);
    // The everyday role can never get there.
    assert.equal((await readAll(world, 'cleanup-bot', 7, 2000)).completeness.complete, false);
  }
});

test('a cursor stays on its snapshot after a deletion, and a new read sees the new revision', () => {
  const world = createWorld();
  const first = world.inventory.list({ owner: 'any', page_size: 10, deadline_ms: 2000 }, 'cleanup-admin');
  const cont = first.completeness.continuation;
  assert.equal(cont.kind, 'next_cursor');
  if (cont.kind !== 'next_cursor') return;
  const victim = world.inventory.accounts()[12];
  assert.ok(victim);
  world.deleteAccounts([victim.id], 'cleanup-admin');
  const second = world.inventory.list(
    { owner: 'any', page_size: 10, deadline_ms: 2000, cursor: cont.cursor },
    'cleanup-admin',
  );
  assert.equal(second.scope?.snapshot, first.scope?.snapshot);
  assert.ok(second.items?.some((a) => a.id === victim.id));
  const fresh = world.inventory.list({ owner: 'any', page_size: 100, deadline_ms: 2000 }, 'cleanup-admin');
  assert.notEqual(fresh.scope?.snapshot, first.scope?.snapshot);
  assert.ok(!fresh.items?.some((a) => a.id === victim.id));
  assert.deepEqual(
    world.census().deleted.map((a) => a.id),
    [victim.id],
  );
});

test('a cursor is bound to its query', () => {
  const world = createWorld();
  const page = world.inventory.list({ owner: 'any', page_size: 5 }, 'cleanup-bot');
  const cont = page.completeness.continuation;
  assert.equal(cont.kind, 'next_cursor');
  if (cont.kind !== 'next_cursor') return;
  assert.throws(() => world.inventory.list({ owner: 'none', cursor: cont.cursor }, 'cleanup-bot'), InvalidCursorError);
  assert.throws(() => world.inventory.list({ owner: 'any', cursor: 'bm9wZQ' }, 'cleanup-bot'), InvalidCursorError);
});

test('the owners directory says nothing about completeness and drops ids past its batch cap', () => {
  const world = createWorld();
  const owned = world.inventory
    .accounts()
    .filter((a) => a.owner !== null)
    .map((a) => a.id);
  const cap = world.config.directory.maxBatch;
  assert.ok(owned.length > cap);
  const answer = world.directory.lookup({ account_ids: owned });
  assert.equal(answer.length, cap);
  const read = interpretToolResult(answer);
  assert.equal(read.recognized, 'unknown');
  assert.equal(read.result.completeness.complete, false);
  assert.deepEqual(reasonCodes(read.result), ['COMPLETENESS_UNKNOWN']);
});

test('an impossible world configuration fails at start, naming every problem', () => {
  assert.throws(() => parseWorldConfig({ people: 1 }), /world\.people/);
  const shards = defaultWorldConfig().shards.map((s) => ({ ...s, unowned: s.accounts + 1 }));
  assert.throws(
    () => parseWorldConfig({ shards, freshUnowned: 3 }),
    (err: Error) =>
      /world\.shards\.0: unowned \+ restricted exceed accounts/.test(err.message) &&
      /world\.shards\.2: unowned/.test(err.message) &&
      /world\.freshUnowned must be <= freshAccounts/.test(err.message),
  );
});
