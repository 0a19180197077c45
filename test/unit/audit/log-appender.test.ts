/**
 * The writer hook (audit/recorder.ts) and the log's appender (audit/log/appender.ts) without ClickHouse: batches
 * become consecutive leaves, concurrent batches never share one, a late batch's runs are marked backfill, a failed
 * insert leaves the tree where the store has it, and nothing is recorded for nothing. The same against the real
 * ClickHouse: test/integration/audit/merkle-log.test.ts, log-write-failures.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LogAppender } from '../../../audit/log/appender.ts';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { leafHashes } from '../../../audit/log/hashes.ts';
import type { EntriesRow, LogStore } from '../../../audit/log/store.ts';
import { TileEdge } from '../../../audit/log/tiles.ts';
import { createDigestRecorder, digestEntries } from '../../../audit/recorder.ts';
import { runsOfEntries } from '../../../audit/runs.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';

const HOUR_S = 1_772_359_200; // 2026-03-01T10:00:00Z

const emptyRows = { toolCalls: [], warnings: [], spans: [] };
const call = (span: string, tenant = 'acme') => ({ tenant, span_id: span, start_time: `${HOUR_S + 5}.000000000` });
const rows = (...spans: string[]) => ({ ...emptyRows, toolCalls: spans.map((s) => call(s)) });

/** A ClickHouse client with an empty log that counts queries and inserts; `failNext` makes one insert fail. */
function fakeClickHouse() {
  let queries = 0;
  let inserts = 0;
  let failNext = false;
  const ch = {
    async query() {
      queries += 1;
      return { json: async () => [] };
    },
    async exec() {
      if (failNext) {
        failNext = false;
        throw new Error('insert failed');
      }
      inserts += 1;
      const { Readable } = await import('node:stream');
      return { stream: Readable.from([]) };
    },
  } as unknown as ClickHouseClient;
  return {
    ch,
    queries: () => queries,
    inserts: () => inserts,
    failOnce: () => {
      failNext = true;
    },
  };
}

/** A store that keeps one tree in memory, as ClickHouse would hold it; `failNext` makes one append fail. */
function fakeStore() {
  const edge = new TileEdge();
  const entries: EntriesRow[] = [];
  let reads = 0;
  let failNext = false;
  const store = {
    async edge() {
      reads += 1;
      return edge.clone();
    },
    async checkpoints() {
      return [];
    },
    async append(logs: { entries: readonly EntriesRow[] }[]) {
      if (failNext) {
        failNext = false;
        throw new Error('append failed');
      }
      for (const l of logs)
        for (const e of l.entries) {
          assert.equal(e.first, edge.size, 'entries follow the stored tree');
          edge.append(leafHashes(e.entries));
          entries.push(e);
        }
    },
  } as unknown as LogStore;
  return {
    store,
    entries,
    reads: () => reads,
    failOnce: () => {
      failNext = true;
    },
  };
}

const appenderOn = (store: LogStore) =>
  new LogAppender({ store, log: 'w1', origin: 'tooltrail', everyRows: 10, everySeconds: 60, witnesses: [] });
const batchOf = (spans: string[], recordedMs: number) => ({
  runs: runsOfEntries(digestEntries(rows(...spans))),
  batchId: spans.join(','),
  recordedMs,
  graceSeconds: 600,
});

describe('the writer hook and the log appender', () => {
  it('appends each batch after the leaves of the one before, reading the tree back only once', async () => {
    const f = fakeClickHouse();
    const rec = createDigestRecorder(f.ch, { database: `db_${Math.random().toString(36).slice(2)}`, chain: 'w1' });
    const a = await rec.record(rows('s1', 's2'), { batchId: 'b1' });
    const b = await rec.record(rows('s3'), { batchId: 'b2' });
    assert.deepEqual(a, [{ tenant: 'acme', log: 'w1', first: 0, count: 2 }]);
    assert.deepEqual(b, [{ tenant: 'acme', log: 'w1', first: 2, count: 1 }]);
    assert.equal(f.inserts(), 2, 'one insert per batch');
    assert.equal(f.queries(), 2, 'the tree (its head) and its checkpoints are read once, then kept');
  });

  it('serializes concurrent batches so that no two share a leaf', async () => {
    const f = fakeClickHouse();
    const rec = createDigestRecorder(f.ch, { database: `db_${Math.random().toString(36).slice(2)}`, chain: 'w1' });
    const out = await Promise.all(['s1', 's2', 's3'].map((s) => rec.record(rows(s, `${s}b`))));
    assert.deepEqual(
      out.map((r) => r[0]!.first),
      [0, 2, 4],
    );
  });

  it('marks the runs of a batch logged after their hour closed (plus grace) as backfill', async () => {
    const s = fakeStore();
    const appender = appenderOn(s.store);
    const closed = (HOUR_S + 3600 + 600) * 1000;
    await appender.append(batchOf(['s1'], closed - 1));
    await appender.append(batchOf(['s2'], closed));
    assert.deepEqual(
      s.entries.map((e) => [e.first, e.backfill]),
      [
        [0, false],
        [1, true],
      ],
    );
  });

  it('does not advance the tree when the insert fails, and reads it back from the store', async () => {
    const s = fakeStore();
    const appender = appenderOn(s.store);
    await appender.append(batchOf(['s1'], HOUR_S * 1000));
    s.failOnce();
    await assert.rejects(appender.append(batchOf(['s2'], HOUR_S * 1000)), /append failed/);
    const [c] = await appender.append(batchOf(['s2'], HOUR_S * 1000));
    assert.equal(c!.first, 1);
    assert.equal(s.reads(), 2, 'read once at the start, once after the failure');
  });

  it('records nothing for an empty batch, nor with the log switched off', async () => {
    const f = fakeClickHouse();
    const rec = createDigestRecorder(f.ch, { database: 'db_empty', chain: 'w1' });
    assert.deepEqual(await rec.record(emptyRows), []);
    const off = createDigestRecorder(f.ch, {
      database: 'db_off',
      chain: 'w1',
      log: { ...defaultLogConfig(), enabled: false },
    });
    assert.deepEqual(await off.record(rows('s1')), []);
    assert.equal(f.inserts(), 0);
  });
});
