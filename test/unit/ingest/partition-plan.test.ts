import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BatchRange } from '../../../ingest/batch-log.ts';
import { DedupWindow } from '../../../ingest/dedup-window.ts';
import { PartitionPlanner, type PlanEntry } from '../../../ingest/partition-plan.ts';

const entry = (offset: number, rows = 10, ts = 1000 + offset): PlanEntry => ({
  offset,
  timestamp: ts,
  hash: () => `h${offset}`,
  id: () => `id${offset}`,
  rows,
  size: 100,
});
const entries = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => entry(from + i));
const range = (first: number, last: number, stored = false): BatchRange => ({
  first,
  last,
  firstTimestamp: 1000 + first,
  firstHash: `h${first}`,
  stored,
});
const limits = { maxRows: 1000, maxBytes: 1_000_000 };

describe('partition planner', () => {
  it('cuts a fresh range at the row limit but always takes at least one message', () => {
    const p = new PartitionPlanner([]);
    const plan = p.next(entries(0, 9), { maxRows: 35, maxBytes: 1e9 }, 100);
    assert.deepEqual([plan.kind, plan.range.first, plan.range.last], ['store', 0, 2]);
    const big = p.next([entry(0, 5000)], { maxRows: 35, maxBytes: 1e9 }, 100);
    assert.deepEqual([big.kind, big.range.last], ['store', 0]);
  });

  it('re-uses a recorded range exactly, so the replay carries the same token', () => {
    const plan = new PartitionPlanner([range(0, 3)]).next(entries(0, 9), limits, 100);
    assert.deepEqual(plan, { kind: 'store', range: range(0, 3), count: 4, recorded: true });
  });

  it('waits until the whole recorded range is buffered instead of storing a shorter one', () => {
    const plan = new PartitionPlanner([range(0, 7)]).next(entries(0, 3), limits, 100);
    assert.equal(plan.kind, 'wait');
  });

  it('skips a recorded range that is already stored', () => {
    const plan = new PartitionPlanner([range(0, 3, true)]).next(entries(0, 5), limits, 100);
    assert.deepEqual(plan, { kind: 'skip', range: range(0, 3, true), count: 4 });
  });

  it('does not store again the tail of a stored range fetched in two parts', () => {
    const p = new PartitionPlanner([range(0, 3, true), range(4, 6, true)]);
    assert.equal(p.next(entries(0, 1), limits, 100).kind, 'wait');
    const plan = p.next(entries(0, 5), limits, 100);
    assert.deepEqual(plan, { kind: 'skip', range: range(0, 3, true), count: 4 });
    p.done(plan.range, entries(0, 5));
    assert.deepEqual(p.next(entries(4, 6), limits, 100), { kind: 'skip', range: range(4, 6, true), count: 3 });
  });

  it('stops a fresh range before the next recorded one', () => {
    const plan = new PartitionPlanner([range(5, 8)]).next(entries(2, 9), limits, 100);
    assert.deepEqual([plan.kind, plan.range.first, plan.range.last], ['store', 2, 4]);
  });

  it('ignores recorded ranges of another log under the same name (re-created topic)', () => {
    const p = new PartitionPlanner([{ ...range(0, 7), firstHash: 'other' }, range(8, 9)]);
    const plan = p.next(entries(0, 2), limits, 100);
    assert.deepEqual([plan.kind, plan.range.last, plan.kind === 'store' && plan.recorded], ['store', 2, false]);
    assert.deepEqual(p.known(), []);
  });

  it('does not wait for a recorded range the log no longer reaches', () => {
    const plan = new PartitionPlanner([range(0, 7)]).next(entries(0, 3), limits, 4);
    assert.deepEqual([plan.kind, plan.range.last], ['store', 3]);
  });

  it('remembers a range before it is recorded, and forgets it once done', () => {
    const p = new PartitionPlanner([]);
    const first = p.next(entries(0, 3), limits, 100);
    p.remember(first.range);
    assert.deepEqual(p.next(entries(0, 9), limits, 100), { ...first, count: 4, recorded: true });
    p.done(first.range, entries(0, 9));
    assert.deepEqual(p.known(), []);
  });

  it('leaves out of a new range the messages whose id an earlier message of the window or range had', () => {
    const window = new DedupWindow(100);
    window.add(3, 'x');
    const p = new PartitionPlanner([], window);
    const withIds = (ids: string[]) => ids.map((id, i) => ({ ...entry(4 + i), id: () => id }));
    const plan = p.next(withIds(['a', 'x', 'b', 'a']), limits, 100);
    assert.deepEqual(plan.range.skipped, [5, 7]);
    const none = new PartitionPlanner([], new DedupWindow(100)).next(entries(0, 3), limits, 100);
    assert.equal(none.range.skipped, undefined);
  });

  it('remembers the ids of a committed range for the next ones', () => {
    const p = new PartitionPlanner([], new DedupWindow(100));
    const e = entries(0, 9);
    const first = p.next(e.slice(0, 3), limits, 100);
    p.done(first.range, e);
    const again = [{ ...entry(3), id: () => 'id1' }];
    assert.deepEqual(p.next(again, limits, 100).range.skipped, [3]);
    assert.equal(new PartitionPlanner([]).deduplicates, false);
  });
});
