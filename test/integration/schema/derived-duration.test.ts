import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { verifyDigests } from '../../../audit/verify.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { loadMigrations, migrateDown, migrateUp } from '../../../schema/migrations.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';

const HOUR_MS = 3_600_000;
// Recent (older rows would fall to the retention TTL on insert), with a nanosecond part.
const START_MS = Math.floor(Date.now() / HOUR_MS) * HOUR_MS - 24 * HOUR_MS + 123;
const START_NS = BigInt(START_MS) * 1_000_000n + 456n;

/** end - start per tool span: ordinary, equal, a clock stepped back, and one beyond 2^53 ns (~104 days). */
const OFFSETS_NS = [750_000n, 0n, -5_000_001n, 200n * 86_400n * 1_000_000_000n + 7n];

function request(tenant: string) {
  const req = syntheticRequest({ tenant, toolSpans: OFFSETS_NS.length, seed: 7, startMs: START_MS });
  const spans = req.resourceSpans[0]!.scopeSpans[0]!.spans.slice(1);
  spans.forEach((s, i) => {
    const start = START_NS + BigInt(i) * 1_000n;
    s.startTimeUnixNano = start.toString();
    s.endTimeUnixNano = (start + OFFSETS_NS[i]!).toString();
  });
  return req;
}

interface Stored {
  start_ns: string;
  end_ns: string;
  duration: string;
}

async function stored(db: TestDatabase, tenant: string): Promise<Stored[]> {
  const rs = await db.ch.query({
    query: `SELECT toString(toUnixTimestamp64Nano(start_time)) AS start_ns, toString(toUnixTimestamp64Nano(end_time)) AS end_ns,
              toString(duration_ns) AS duration
            FROM ${db.database}.tool_calls WHERE tenant = {tenant:String} ORDER BY start_time`,
    query_params: { tenant },
    format: 'JSONEachRow',
  });
  return rs.json<Stored>();
}

const expected = () =>
  OFFSETS_NS.map((off, i) => {
    const start = START_NS + BigInt(i) * 1_000n;
    return {
      start_ns: start.toString(),
      end_ns: (start + off).toString(),
      duration: (off > 0n ? off : 0n).toString(),
    };
  });

async function columnKind(db: TestDatabase, name: string): Promise<string> {
  const rs = await db.ch.query({
    query: `SELECT default_kind FROM system.columns WHERE database = {db:String} AND table = 'tool_calls' AND name = {name:String}`,
    query_params: { db: db.database, name },
    format: 'JSONEachRow',
  });
  return (await rs.json<{ default_kind: string }>())[0]?.default_kind ?? 'missing';
}

describe('tool_calls.duration_ns is derived from start_time and end_time (migration 0006)', () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase('tt_duration');
  });
  after(async () => {
    await db?.drop();
  });

  it('stores end_time as sent, derives the duration exactly, and a stepped-back clock reads 0', async () => {
    const tenant = uniqueName('t');
    const rows = flatten(request(tenant));
    const digests = createDigestRecorder(db.ch, { database: db.database, chain: 'writer-a', now: () => Date.now() });
    await createClickHouseWriter(db.ch, { database: db.database, batchStored: digests }).writeRows(rows, {
      dedupToken: uniqueName('batch'),
    });
    assert.equal(await columnKind(db, 'duration_ns'), 'ALIAS');
    assert.deepEqual(await stored(db, tenant), expected());
    // The digest hashed the writer's duration; verify re-reads the derived one: they must agree.
    const report = await verifyDigests(db.ch, db.schema, {
      tenant,
      from: new Date(START_MS - HOUR_MS),
      to: new Date(START_MS + HOUR_MS),
    });
    assert.deepEqual(report.issues, []);
    assert.equal(report.checked.rows, OFFSETS_NS.length + 1);
  });
});

describe('migration 0006 on existing rows', () => {
  const only6 = () => loadMigrations().filter((m) => m.version === 6);
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase('tt_m0006');
    // A deployment from before 0006: every other migration applied (the detectors' views on tool_calls included).
    await db.ch.command({ query: `DROP DATABASE ${db.database}` });
    await migrateUp(
      db.ch,
      db.schema,
      loadMigrations().filter((m) => m.version !== 6),
    );
  });
  after(async () => {
    await db?.drop();
  });

  async function createTable(): Promise<string> {
    const rs = await db.ch.query({ query: `SHOW CREATE TABLE ${db.database}.tool_calls`, format: 'TabSeparatedRaw' });
    return rs.text();
  }

  it('keeps every duration through up and down, and down restores the table as it was', async () => {
    const tenant = 'acme';
    const before0006 = await createTable();
    // Rows as the writer before 0006 inserted them: duration_ns sent, computed the same way.
    const rows = flatten(request(tenant)).toolCalls;
    await db.ch.insert({ table: `${db.database}.tool_calls`, values: rows, format: 'JSONEachRow' });
    assert.deepEqual(await stored(db, tenant), expected());

    assert.deepEqual((await migrateUp(db.ch, db.schema)).applied, [6]);
    assert.equal(await columnKind(db, 'duration_ns'), 'ALIAS');
    assert.deepEqual(await stored(db, tenant), expected());
    await db.ch.command({ query: `OPTIMIZE TABLE ${db.database}.tool_calls FINAL` });
    assert.deepEqual(await stored(db, tenant), expected(), 'after the parts are rewritten without the column');

    assert.deepEqual(await migrateDown(db.ch, db.schema, 1, only6()), [6]);
    assert.equal(await columnKind(db, 'duration_ns'), '');
    assert.deepEqual(await stored(db, tenant), expected());
    assert.equal(await createTable(), before0006);
  });
});
