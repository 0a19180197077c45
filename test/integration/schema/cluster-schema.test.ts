import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import { loadMigrations, renderSql, splitStatements } from '../../../schema/migrations.ts';
import { requireClickHouse, services } from '../../../testkit/services.ts';

describe('cluster schema variant (real ClickHouse parser)', () => {
  it('generates DDL that ClickHouse parses for every ingest migration', async () => {
    await requireClickHouse();
    const ch = createClickHouse({ url: services.clickhouse.url });
    try {
      let checked = 0;
      for (const m of loadMigrations().filter((x) => x.version <= 9)) {
        for (const sql of [m.up, m.down]) {
          for (const stmt of splitStatements(
            renderSql(sql, { database: 'tt_cluster', retentionDays: 30, cluster: 'prod' }),
          )) {
            // EXPLAIN AST parses without executing: no cluster is needed to check the DDL.
            const rs = await ch.query({ query: `EXPLAIN AST ${stmt}`, format: 'TabSeparatedRaw' });
            assert.match(await rs.text(), /Query/, `${m.name}: ${stmt.slice(0, 80)}`);
            checked++;
          }
        }
      }
      assert.ok(checked >= 8, `checked ${checked} statements`);
    } finally {
      await ch.close();
    }
  });
});
