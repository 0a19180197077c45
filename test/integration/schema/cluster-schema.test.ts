import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import { distributedStatements, loadMigrations, renderSql, splitStatements } from '../../../schema/migrations.ts';
import { freshDatabase, requireClickHouse, services } from '../../../testkit/services.ts';

const CLUSTER = { database: 'tt_cluster', retentionDays: 30, cluster: 'prod' };

describe('cluster schema variant (real ClickHouse parser)', () => {
  it('generates DDL that ClickHouse parses for every migration, up and down, and every Distributed table', async () => {
    await requireClickHouse();
    const ch = createClickHouse({ url: services.clickhouse.url });
    try {
      const statements = [
        ...loadMigrations().flatMap((m) =>
          [m.up, m.down].flatMap((sql) => splitStatements(renderSql(sql, CLUSTER)).map((s) => ({ m: m.name, s }))),
        ),
        ...distributedStatements(CLUSTER).map((s) => ({ m: 'distributed.sql', s })),
      ];
      for (const { m, s } of statements) {
        // EXPLAIN AST parses without executing: no cluster is needed to check the DDL.
        const rs = await ch.query({ query: `EXPLAIN AST ${s}`, format: 'TabSeparatedRaw' });
        assert.match(await rs.text(), /Query/, `${m}: ${s.slice(0, 80)}`);
      }
      assert.ok(statements.length >= 60, `checked ${statements.length} statements`);
    } finally {
      await ch.close();
    }
  });

  it("shards every Distributed table by an expression of its local table's real columns", async () => {
    const db = await freshDatabase('tt_shard_keys');
    try {
      for (const stmt of distributedStatements({ ...CLUSTER, database: db.database })) {
        const m = /ENGINE = Distributed\(prod, \w+, (\w+), (.+)\)$/s.exec(stmt);
        assert.ok(m, `a Distributed engine with a sharding key: ${stmt.slice(0, 80)}`);
        const [, table, key] = m;
        // The engine types the expression against the migrated table: an unknown column fails, and Distributed
        // needs an integer to take modulo the shard weights.
        const rs = await db.ch.query({
          query: `DESCRIBE (SELECT ${key} AS k FROM ${db.database}.${table})`,
          format: 'JSONEachRow',
        });
        const [col] = await rs.json<{ type: string }>();
        assert.match(col?.type ?? '', /^U?Int(8|16|32|64)$/, `${table}: ${key} is ${col?.type}`);
      }
    } finally {
      await db.drop();
    }
  });
});
