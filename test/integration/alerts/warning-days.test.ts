/**
 * The warning lifecycle detector reads the daily rollup (warning_days, migration 0019), not every occurrence, and
 * returns the same rows as counting the raw table did (the query of before, kept as a reference), including at
 * the edges of its range: the days cut by the lookback's start, the window's start and now.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../../alerts/clock.ts';
import { queryRows, runDetector } from '../../../alerts/detectors/load.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';

const REFERENCE = readFileSync(new URL('./reference/persistent_unowned_warning_raw.sql', import.meta.url), 'utf8');
const tenant = uniqueName('warn');
const now = new Date();
let db: TestDatabase;

const params = (at: Date) => ({
  database: db.database,
  tenant: '',
  now: at,
  window_days: 90,
  min_days_fraction: 0.5,
  retire_after_days: 30,
});

/** Rows comparable across the two queries: the (up to 5) tools and agents are sets, in no particular order. */
const canonical = (rows: Record<string, unknown>[]) =>
  rows.map((r) => ({
    ...r,
    tools: [...(r.tools as string[])].sort(),
    agents: [...(r.agents as string[])].sort(),
  }));

before(async () => {
  db = await freshDatabase('tt_alerts_warning_days');
  // 200k occurrences of 12 warnings in two tenants over 140 days (and a few in the future), each warning seen on
  // its own share of the days; at most 5 tools and agents per warning so the rollup's sets are exact.
  await db.ch.command({
    query: `INSERT INTO ${db.database}.tool_call_warnings
              (tenant, time, code, source, message, tool_name, agent_name, session_id, trace_id, span_id)
            SELECT
              if(number % 2 = 0, {tenant:String}, concat({tenant:String}, '-b')) AS tenant,
              {base:DateTime64(9)} - toIntervalMillisecond(cityHash64(number) % (140 * 86400000))
                + toIntervalDay(if(number % 997 = 0, 2, 0)) AS time,
              ['STALE_INDEX', 'PARTIAL_FIELD_SET', 'SORT_OVERRIDDEN'][number % 3 + 1] AS code,
              concat('source-', toString(intDiv(number, 6) % 4)) AS source,
              'm' AS message,
              concat('tool-', toString(cityHash64(number, 1) % 4)) AS tool_name,
              concat('agent-', toString(cityHash64(number, 2) % 3)) AS agent_name,
              '' AS session_id, hex(number) AS trace_id, hex(number) AS span_id
            FROM numbers(200000)
            WHERE toDayOfYear(time) % (2 + number % 3) != 0
            SETTINGS max_partitions_per_insert_block = 1000`,
    query_params: { tenant, base: now },
  });
});
after(async () => {
  await db?.drop();
});

describe('persistent_unowned_warning over the daily rollup', () => {
  for (const [label, at] of [
    ['now', now],
    ['a third of a day ago', new Date(now.getTime() - DAY_MS / 3)],
    ['40.7 days ago', new Date(now.getTime() - 40.7 * DAY_MS)],
  ] as const) {
    it(`returns the same rows as counting every occurrence (judged at ${label})`, async () => {
      const [rollup, raw] = await Promise.all([
        runDetector(db.ch, 'persistent_unowned_warning', params(at)),
        queryRows(db.ch, REFERENCE, params(at)),
      ]);
      assert.equal(raw.length, 24, 'every warning of both tenants');
      assert.deepEqual(canonical(rollup as Record<string, unknown>[]), canonical(raw));
    });
  }

  it('reads the rollup: a day known only to warning_days counts', async () => {
    const day = new Date(now.getTime() - 10 * DAY_MS);
    await db.ch.command({
      query: `INSERT INTO ${db.database}.warning_days
              SELECT {tenant:String}, 'DEPRECATED_FIELD', 'rollup-only', toDate({day:DateTime64(9)}, 'UTC'), 7,
                     {day:DateTime64(9)}, {day:DateTime64(9)}, groupUniqArrayState(5)('t'), groupUniqArrayState(5)('a')`,
      query_params: { tenant, day },
    });
    const rows = (await runDetector(db.ch, 'persistent_unowned_warning', params(now))) as Record<string, unknown>[];
    const row = rows.find((r) => r.source === 'rollup-only');
    assert.equal(row?.days_seen, 1);
    assert.equal(Number(row?.occurrences), 7);
  });
});
