/**
 * The read side's ClickHouse client (platform/auth/read-clickhouse.ts) against the real server: it reads, and
 * every kind of write or schema change is refused by the server, whatever statement a bug might send.
 *
 * The local engine (chdb behind services/clickhouse/launch.py) has access management off: its only user is
 * `default` from users_xml and `CREATE USER` is refused (ACCESS_DENIED), so a separate read-only *account*
 * (TOOLTRAIL_CLICKHOUSE_READ_USER, e.g. dashboards/clickhouse/users.d/tooltrail-grafana.xml) cannot be created
 * here; what is tested is the server-enforced `readonly = 2` the read side asks for without one, and that a
 * configured read user is the account the client presents.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createReadClickHouse, READ_USER_ENV } from '../../../platform/auth/read-clickhouse.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { freshDatabase, services, type TestDatabase } from '../../../testkit/services.ts';

describe('the read-side ClickHouse client cannot write', () => {
  let db: TestDatabase;
  let read: ClickHouseClient;
  before(async () => {
    db = await freshDatabase('tt_sec_ro');
    await db.ch.command({ query: `CREATE TABLE ${db.database}.canary (x UInt8) ENGINE = MergeTree ORDER BY x` });
    await db.ch.command({ query: `INSERT INTO ${db.database}.canary VALUES (1)` });
    read = createReadClickHouse(services.clickhouse, { ...process.env, [READ_USER_ENV]: '' });
  });
  after(async () => {
    await read?.close();
    await db?.drop();
  });

  it('reads', async () => {
    const rs = await read.query({ query: `SELECT x FROM ${db.database}.canary`, format: 'JSONEachRow' });
    assert.deepEqual(await rs.json(), [{ x: 1 }]);
  });

  for (const [what, sql] of [
    ['INSERT', (d: string) => `INSERT INTO ${d}.canary VALUES (2)`],
    ['INSERT into a pipeline table', (d: string) => `INSERT INTO ${d}.tool_calls (tenant) VALUES ('forged')`],
    ['ALTER ... DELETE', (d: string) => `ALTER TABLE ${d}.canary DELETE WHERE 1`],
    ['ALTER ... ADD COLUMN', (d: string) => `ALTER TABLE ${d}.canary ADD COLUMN y UInt8`],
    ['TRUNCATE', (d: string) => `TRUNCATE TABLE ${d}.canary`],
    ['DROP TABLE', (d: string) => `DROP TABLE ${d}.canary`],
    ['DROP DATABASE', (d: string) => `DROP DATABASE ${d}`],
    ['CREATE TABLE', (d: string) => `CREATE TABLE ${d}.planted (x UInt8) ENGINE = Memory`],
    ['SET readonly = 0', () => 'SET readonly = 0'],
    ['a SELECT that lifts readonly', (d: string) => `SELECT * FROM ${d}.canary SETTINGS readonly = 0`],
  ] as const) {
    it(`refuses ${what}`, async () => {
      await assert.rejects(read.command({ query: sql(db.database) }), /readonly|READONLY/i);
    });
  }

  it('left the data and the schema as they were', async () => {
    const rs = await db.ch.query({ query: `SELECT x FROM ${db.database}.canary`, format: 'JSONEachRow' });
    assert.deepEqual(await rs.json(), [{ x: 1 }]);
    const tables = await db.ch.query({
      query: `SELECT name FROM system.tables WHERE database = {d:String} AND name = 'planted'`,
      query_params: { d: db.database },
      format: 'JSONEachRow',
    });
    assert.deepEqual(await tables.json(), []);
  });

  it('connects as TOOLTRAIL_CLICKHOUSE_READ_USER when it is set (an unknown one is refused by the server)', async () => {
    const other = createReadClickHouse(services.clickhouse, {
      [READ_USER_ENV]: 'tooltrail_no_such_reader',
      TOOLTRAIL_CLICKHOUSE_READ_PASSWORD: 'x',
    });
    try {
      await assert.rejects(other.query({ query: 'SELECT 1' }), /tooltrail_no_such_reader|AUTHENTICATION_FAILED/);
    } finally {
      await other.close();
    }
  });
});
