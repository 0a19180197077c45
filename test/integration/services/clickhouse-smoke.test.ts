import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type ClickHouseClient, createClickHouse } from '../../../platform/clickhouse.ts';
import { requireClickHouse, services, uniqueName } from '../../../testkit/services.ts';

let ch: ClickHouseClient;
const database = uniqueName('tt_smoke');

before(async () => {
  await requireClickHouse();
  ch = createClickHouse({ url: services.clickhouse.url });
  await ch.command({ query: `CREATE DATABASE ${database}` });
});
after(async () => {
  await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await ch.close();
});

test('the real ClickHouse HTTP interface round-trips typed rows with bound parameters', async () => {
  await ch.command({
    query: `CREATE TABLE ${database}.calls (tenant LowCardinality(String), at DateTime64(9, 'UTC'), complete Bool,
      reasons Array(LowCardinality(String)), attrs Map(LowCardinality(String), String))
      ENGINE = MergeTree ORDER BY (tenant, at)`,
  });
  const rows = [
    {
      tenant: 'a',
      at: '2026-11-30 01:02:03.123456789',
      complete: false,
      reasons: ['MORE_PAGES_AVAILABLE'],
      attrs: { k: 'v' },
    },
    { tenant: 'b', at: '2026-11-30 01:02:04.000000001', complete: true, reasons: [], attrs: {} },
  ];
  await ch.insert({ table: `${database}.calls`, values: rows, format: 'JSONEachRow' });
  const rs = await ch.query({
    query: `SELECT tenant, toString(at) AS at, complete, reasons, attrs FROM ${database}.calls WHERE tenant = {t:String}`,
    query_params: { t: 'a' },
    format: 'JSONEachRow',
  });
  assert.deepEqual(await rs.json(), [rows[0]]);
});
