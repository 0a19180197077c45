/**
 * dangerous_empty_reads reads the per-minute rollup (read_minutes, migration 0040) for the whole minutes of its range
 * and the raw reads only where its edges cut a minute, and returns the same rows as counting every read did (the
 * query of before, kept as a reference): at ranges whose edges fall inside minutes, on them, within one minute, for
 * one tenant, with thresholds; after late reads arrive in minutes already rolled up; after a retried insert.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { queryRows, runDetector } from '../../../alerts/detectors/load.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';

const REFERENCE = readFileSync(
  new URL('../../../testkit/reference/dangerous_empty_reads_raw.sql', import.meta.url),
  'utf8',
);
const tenant = uniqueName('reads');
const MINUTE = 60_000;
// A minute boundary an hour and a half ago, so that ranges can be placed on and off the minutes.
const base = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 90 * MINUTE);
let db: TestDatabase;

/**
 * Reads (and some mutations and unmarked spans, which never count) of two tenants and four tools, over two hours from
 * `from`, at nanosecond times: every mix of complete / false / unknown, reasons none, one, two or one repeated,
 * item_count empty, non-empty or absent.
 */
async function insertCalls(from: Date, count: number, seed: number, token?: string): Promise<void> {
  await db.ch.command({
    query: `INSERT INTO {database:Identifier}.tool_calls
              (tenant, session_id, start_time, end_time, trace_id, span_id, tool_name, effect, result_complete,
               complete_reported, result_reasons, result_item_count)
            SELECT
              if(n % 3 = 0, concat({tenant:String}, '-b'), {tenant:String}) AS tenant,
              concat('s-', toString(n % 97)) AS session_id,
              {from:DateTime64(9)} + toIntervalNanosecond(cityHash64(n, 1) % (7200 * 1000000000)) AS start_time,
              start_time AS end_time,
              lower(hex(cityHash64(n, 2))) AS trace_id, lower(hex(cityHash64(n, 3))) AS span_id,
              concat('tool-', toString(cityHash64(n, 4) % 4)) AS tool_name,
              ['read', 'read', 'read', 'read', 'read', 'read', 'mutation', ''][cityHash64(n, 5) % 8 + 1] AS effect,
              cityHash64(n, 6) % 3 = 0 AS result_complete,
              result_complete OR cityHash64(n, 7) % 4 != 0 AS complete_reported,
              [[], ['MORE_PAGES_AVAILABLE'], ['RESULT_LIMIT_REACHED', 'CLIENT_LIMIT_REACHED'],
               ['SOURCE_UNAVAILABLE', 'SOURCE_UNAVAILABLE'], ['RATE_LIMITED']][cityHash64(n, 8) % 5 + 1] AS result_reasons,
              [NULL, 0, 0, 3][cityHash64(n, 9) % 4 + 1] AS result_item_count
            FROM (SELECT number + {seed:UInt64} AS n FROM numbers({count:UInt64}))`,
    query_params: { database: db.database, tenant, from, count, seed },
    ...(token ? { clickhouse_settings: { insert_deduplication_token: token } } : {}),
  });
}

type Extra = Partial<{ tenant: string; min_count: number; min_rate: number }>;
/** since/until as Dates, or as text when they need nanoseconds (a Date holds milliseconds). */
const params = (since: Date | string, until: Date | string, extra: Extra = {}) => ({
  database: db.database,
  tenant: '',
  since,
  until,
  min_count: 0,
  min_rate: 0,
  ...extra,
});

async function both(p: ReturnType<typeof params>) {
  const [rollup, raw] = await Promise.all([
    runDetector(db.ch, 'dangerous_empty_reads', p),
    queryRows(db.ch, REFERENCE, p),
  ]);
  return { rollup, raw };
}

/** The time `ms` after base plus `ns` nanoseconds, as a DateTime64(9) parameter's text. */
const at = (ms: number, ns = 0) => {
  const d = new Date(base.getTime() + ms);
  return `${d.toISOString().slice(0, 19).replace('T', ' ')}.${String(d.getUTCMilliseconds()).padStart(3, '0')}${String(ns).padStart(6, '0')}`;
};

before(async () => {
  db = await freshDatabase('tt_alerts_read_minutes');
  await insertCalls(base, 40_000, 0);
});
after(async () => {
  await db?.drop();
});

describe('dangerous_empty_reads over the per-minute rollup', () => {
  const ranges: Array<[string, string, string, Extra?]> = [
    ['edges inside minutes, at nanoseconds', at(17 * MINUTE + 12_345, 678_901), at(77 * MINUTE + 41_000, 1)],
    ['edges on minutes', at(10 * MINUTE), at(70 * MINUTE)],
    ['since on a minute, until inside one', at(5 * MINUTE), at(65 * MINUTE + 30_000)],
    ['within one minute', at(30 * MINUTE + 1_000, 5), at(30 * MINUTE + 59_000, 999_999)],
    ['across one minute boundary only', at(30 * MINUTE + 45_000), at(31 * MINUTE + 15_000)],
    ['one tenant, with thresholds', at(3 * MINUTE + 7), at(100 * MINUTE + 7), { tenant, min_count: 40, min_rate: 0.1 }],
  ];
  for (const [label, since, until, extra] of ranges) {
    it(`returns the same rows as counting every read (${label})`, async () => {
      const { rollup, raw } = await both(params(since, until, extra));
      assert.ok(raw.length > 0, 'the range holds incomplete empty reads');
      assert.deepEqual(rollup, raw);
    });
  }

  it('counts late reads in the minutes they belong to, already rolled up', async () => {
    const p = params(new Date(base.getTime() + 20 * MINUTE + 500), new Date(base.getTime() + 80 * MINUTE + 500));
    const before = await runDetector(db.ch, 'dangerous_empty_reads', p);
    // Reads stored now whose start times fall inside the range (a late exporter, a replayed dead letter).
    await insertCalls(new Date(base.getTime() - 30 * MINUTE), 20_000, 1_000_000);
    const { rollup, raw } = await both(p);
    assert.deepEqual(rollup, raw);
    const total = (rows: unknown[]) =>
      rows.reduce((n: number, r) => n + Number((r as { total_reads: string }).total_reads), 0);
    assert.ok(total(rollup) > total(before), 'the late reads are counted');
  });

  it('counts a retried insert once (the view deduplicates with the insert token)', async () => {
    const p = params(new Date(base.getTime() + 2 * MINUTE), new Date(base.getTime() + 118 * MINUTE));
    await insertCalls(new Date(base.getTime()), 5_000, 5_000_000, 'retried-batch');
    const once = await runDetector(db.ch, 'dangerous_empty_reads', p);
    await insertCalls(new Date(base.getTime()), 5_000, 5_000_000, 'retried-batch');
    const { rollup, raw } = await both(p);
    assert.deepEqual(rollup, once);
    assert.deepEqual(rollup, raw);
  });

  it('reads the rollup: a whole minute known only to read_minutes counts, a cut one is read raw', async () => {
    const minute = new Date(base.getTime() + 40 * MINUTE);
    await db.ch.command({
      query: `INSERT INTO {database:Identifier}.read_minutes
              VALUES ({minute:DateTime64(0)}, {tenant:String}, 'rollup-only', 10, (['RATE_LIMITED'], [7]))`,
      query_params: { database: db.database, tenant, minute },
    });
    const rows = (await runDetector(
      db.ch,
      'dangerous_empty_reads',
      params(new Date(minute.getTime() - MINUTE), new Date(minute.getTime() + MINUTE)),
    )) as Array<Record<string, unknown>>;
    const row = rows.find((r) => r.tool_name === 'rollup-only');
    assert.deepEqual([Number(row?.incomplete_empty_reads), Number(row?.total_reads), row?.rate], [7, 10, 0.7]);
    const cut = (await runDetector(
      db.ch,
      'dangerous_empty_reads',
      params(new Date(minute.getTime() + 1), new Date(minute.getTime() + MINUTE)),
    )) as Array<Record<string, unknown>>;
    assert.equal(
      cut.find((r) => r.tool_name === 'rollup-only'),
      undefined,
    );
  });
});
