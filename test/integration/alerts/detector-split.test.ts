/**
 * A long range runs as two concurrent halves (alerts/detectors/load.ts): the rows must be exactly those of one
 * query over the whole range, in the same order, including a mutation just after the split whose incomplete read
 * came just before it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compareStrings, loadDetector, mergeOrdered, queryRows, runDetector } from '../../../alerts/detectors/load.ts';
import { chTimeToIso } from '../../../alerts/detectors/rows.ts';
import { generateCorpus } from '../../../bench/detector-evaluation/labelled-corpus.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';
import { buildSessionSpans } from '../../../testkit/session-spans.ts';

const DAY = 86_400_000;
const WINDOW_SECONDS = 3_600;
const now = new Date();
let db: TestDatabase;

before(async () => {
  db = await freshDatabase('tt_alerts_split');
  const corpus = generateCorpus({
    sessions: 240,
    seed: 11,
    windowSeconds: WINDOW_SECONDS,
    now,
    spreadSeconds: 10 * 86_400,
  });
  // Two tenants: the ORDER BY starts with the tenant, so each half's rows interleave with the other's.
  await ingestSpans(db, buildSessionSpans(corpus.map((c) => c.script)).spans, 'acme');
  await ingestSpans(db, buildSessionSpans(corpus.map((c) => c.script)).spans, 'globex');
});
after(async () => {
  await db?.drop();
});

describe('a detector over a long range, run as two halves', () => {
  for (const name of ['mutation_after_incomplete_read', 'absence_mutation_without_complete_evidence'] as const) {
    it(`${name}: the same rows in the same order as one query, across the split`, async () => {
      const params = (since: Date, until: Date) => ({
        database: db.database,
        tenant: '',
        since,
        until,
        window_seconds: WINDOW_SECONDS,
      });
      const whole = await queryRows(db.ch, loadDetector(name).sql, params(new Date(now.getTime() - 11 * DAY), now));
      // The split falls half a second before a finding's mutation, after the read that made it a finding.
      const byTime = [...whole].sort((x, y) => compareStrings(String(x.mutation_time), String(y.mutation_time)));
      const target = byTime[Math.floor(byTime.length / 2)];
      assert.ok(target, 'the corpus has findings');
      const mid = new Date(Date.parse(chTimeToIso(String(target.mutation_time))) - 500);
      const since = new Date(mid.getTime() - 10 * DAY);
      const until = new Date(mid.getTime() + 10 * DAY);
      const reference = await queryRows(db.ch, loadDetector(name).sql, params(since, until));
      const split = await runDetector(db.ch, name, params(since, until));
      assert.deepEqual(split, reference);
      assert.ok(split.some((r) => (r as Record<string, unknown>).mutation_span_id === target.mutation_span_id));
      const times = reference.map((r) => Date.parse(chTimeToIso(String(r.mutation_time))));
      assert.ok(times.some((t) => t < mid.getTime()) && times.some((t) => t >= mid.getTime()), 'rows on both sides');
    });
  }
});

describe('merging two halves', () => {
  it('orders strings as ClickHouse does (UTF-8 bytes), also past U+FFFF where UTF-16 order differs', () => {
    assert.ok(compareStrings('a', 'b') < 0 && compareStrings('b', 'a') > 0 && compareStrings('x', 'x') === 0);
    assert.ok(compareStrings('ab', 'abc') < 0);
    // U+FF01 sorts before U+1F600 in code points, after it in UTF-16 units (a surrogate, 0xD83D).
    assert.ok('\u{1F600}' < '\uFF01');
    assert.ok(compareStrings('\uFF01', '\u{1F600}') < 0);
    assert.equal(Buffer.compare(Buffer.from('\uFF01'), Buffer.from('\u{1F600}')), -1);
  });

  it('merges two sorted lists by the order columns, the first list first on ties', () => {
    const row = (tenant: string, time: string, id: string) => ({ tenant, t: time, id });
    const a = [row('a', '1', 'x'), row('b', '1', 'a1'), row('b', '3', 'z')];
    const b = [row('a', '2', 'y'), row('b', '1', 'a1'), row('c', '0', 'q')];
    const merged = mergeOrdered(a, b, ['tenant', 't', 'id']);
    assert.deepEqual(merged, [a[0], b[0], a[1], b[1], a[2], b[2]]);
    assert.equal(merged[2], a[1]);
  });
});
