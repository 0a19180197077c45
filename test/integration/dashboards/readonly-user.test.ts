/**
 * The ClickHouse user Grafana connects as (dashboards/clickhouse/users.d/tooltrail-grafana.xml, the very file
 * docker-compose.yml mounts) can read the tooltrail schema and nothing else: no DDL, no inserts, no way out of
 * read-only mode, no other database. Runs on a private ClickHouse so the shared one's users are untouched.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { SQL_DIR } from '../../../dashboards/clickhouse-query.ts';
import { renderPanelSql } from '../../../dashboards/macros.ts';
import { type ClickHouseClient, createClickHouse } from '../../../platform/clickhouse.ts';
import { DEFAULT_RETENTION_DAYS } from '../../../schema/config.ts';
import { migrateUp } from '../../../schema/migrations.ts';
import { type OwnClickHouse, startOwnClickHouse } from './own-clickhouse.ts';

const ROOT = join(import.meta.dirname, '../../..');
const USERS_FILE = join(ROOT, 'dashboards/clickhouse/users.d/tooltrail-grafana.xml');
const DATASOURCE = parse(readFileSync(join(ROOT, 'dashboards/provisioning/datasources/tooltrail.yaml'), 'utf8')) as {
  datasources: Array<{ type: string; jsonData: { username: string; defaultDatabase: string } }>;
};
const clickhouseDs = DATASOURCE.datasources.find((d) => d.type === 'grafana-clickhouse-datasource')!;
const PASSWORD = randomBytes(12).toString('hex');

let server: OwnClickHouse;
let admin: ClickHouseClient;
let reader: ClickHouseClient;

before(async () => {
  server = await startOwnClickHouse([USERS_FILE], { TOOLTRAIL_GRAFANA_CLICKHOUSE_PASSWORD: PASSWORD });
  admin = createClickHouse({ url: server.url, ...server.admin });
  // The real schema, in the database the datasource names, plus one row to read.
  const database = clickhouseDs.jsonData.defaultDatabase;
  await migrateUp(admin, { database, retentionDays: DEFAULT_RETENTION_DAYS });
  await admin.insert({
    table: `${database}.tool_calls`,
    values: [
      { tenant: 'acme', session_id: 's1', tool_name: 'list', effect: 'read', start_time: '2026-01-01 00:00:00' },
    ],
    format: 'JSONEachRow',
  });
  await admin.command({ query: 'CREATE DATABASE other' });
  await admin.command({ query: 'CREATE TABLE other.secrets (v String) ENGINE = MergeTree ORDER BY v' });
  reader = createClickHouse({
    url: server.url,
    user: clickhouseDs.jsonData.username,
    password: PASSWORD,
    database,
  });
});

after(async () => {
  await reader?.close();
  await admin?.close();
  await server?.stop();
});

/** The ClickHouse error code of a refused statement (497 ACCESS_DENIED, 164 READONLY, ...). */
async function refusal(statement: Promise<unknown>): Promise<string> {
  try {
    await statement;
  } catch (err) {
    return String((err as { code?: string }).code ?? (err as Error).message);
  }
  throw new Error('the statement was allowed');
}

const READ_ONLY_REFUSALS = new Set(['497', '164']); // ACCESS_DENIED, READONLY

test('the datasource user reads the tooltrail schema, as a dashboard panel does', async () => {
  const rs = await reader.query({ query: 'SELECT toUInt8(count()) AS n FROM tool_calls', format: 'JSONEachRow' });
  assert.deepEqual(await rs.json(), [{ n: 1 }]);
  const panel = readFileSync(join(SQL_DIR, 'completeness/incomplete_share_total.sql'), 'utf8');
  const sql = renderPanelSql(panel, {
    from: new Date('2025-12-31T00:00:00Z'),
    to: new Date('2026-01-02T00:00:00Z'),
    intervalMs: 60_000,
    variables: { tenant: { value: '$__all' }, agent: { value: '$__all' }, tool: { value: '$__all' } },
  });
  const share = await reader.query({ query: sql, format: 'JSONEachRow' });
  assert.deepEqual(await share.json(), [{ incomplete_reads: 1 }]);
});

test('the datasource user runs in read-only mode 2 and cannot leave it', async () => {
  const rs = await reader.query({
    query: "SELECT getSetting('readonly') AS readonly, getSetting('allow_ddl') AS allow_ddl",
    format: 'JSONEachRow',
  });
  assert.deepEqual(await rs.json(), [{ readonly: 2, allow_ddl: false }]);
  assert.equal(await refusal(reader.query({ query: 'SELECT 1', clickhouse_settings: { readonly: '0' } })), '164');
});

test('the datasource user may set the per-query timeout the plugin sends, within the cap', async () => {
  await reader.query({ query: 'SELECT 1', clickhouse_settings: { max_execution_time: 30 } });
  assert.equal(
    await refusal(reader.query({ query: 'SELECT 1', clickhouse_settings: { max_execution_time: 3600 } })),
    '452', // SETTING_CONSTRAINT_VIOLATION
  );
});

test('the datasource user cannot insert, alter, create, drop, truncate or manage users', async () => {
  const statements = [
    "INSERT INTO tool_calls (tenant, session_id) VALUES ('x', 'y')",
    'ALTER TABLE tool_calls ADD COLUMN hacked String',
    'ALTER TABLE tool_calls DELETE WHERE 1',
    'CREATE TABLE tooltrail.hacked (a UInt8) ENGINE = Memory',
    'CREATE VIEW tooltrail.hacked AS SELECT 1',
    'DROP TABLE tool_calls',
    'TRUNCATE TABLE tool_calls',
    "CREATE USER hacker IDENTIFIED WITH plaintext_password BY 'x'",
    'GRANT ALL ON *.* TO tooltrail_grafana',
    'OPTIMIZE TABLE tool_calls FINAL',
  ];
  for (const query of statements) {
    const code = await refusal(reader.command({ query }));
    assert.ok(READ_ONLY_REFUSALS.has(code), `${query} refused with code ${code}, expected access denied or read-only`);
  }
  const rs = await admin.query({
    query:
      "SELECT toUInt8(count()) AS n, countIf(name = 'hacked') AS hacked FROM system.columns WHERE database = 'tooltrail'",
    format: 'JSONEachRow',
  });
  const [columns] = await rs.json<{ n: number; hacked: number }>();
  assert.equal(Number(columns?.hacked), 0, 'no column was added');
  const rows = await admin.query({
    query: 'SELECT toUInt8(count()) AS n FROM tooltrail.tool_calls',
    format: 'JSONEachRow',
  });
  assert.deepEqual(await rows.json(), [{ n: 1 }], 'the table is untouched');
});

test('the datasource user cannot read outside the tooltrail database', async () => {
  assert.equal(await refusal(reader.query({ query: 'SELECT * FROM other.secrets' })), '497');
});

test('a wrong password is refused', async () => {
  const wrong = createClickHouse({ url: server.url, user: clickhouseDs.jsonData.username, password: 'nope' });
  try {
    assert.equal(await refusal(wrong.query({ query: 'SELECT 1' })), '516'); // AUTHENTICATION_FAILED
  } finally {
    await wrong.close();
  }
});
