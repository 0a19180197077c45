import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { engineFor, loadMigrations, renderSql, splitStatements } from '../../../schema/migrations.ts';

const cluster = { database: 'tooltrail', retentionDays: 400, cluster: 'prod' };
const single = { database: 'tooltrail', retentionDays: 400 };
const ingestMigrations = () => loadMigrations().filter((m) => m.version <= 9);

describe('schema variants', () => {
  it('puts every ingest DDL statement ON CLUSTER with a Replicated engine in the cluster variant', () => {
    for (const m of ingestMigrations()) {
      for (const stmt of splitStatements(renderSql(m.up, cluster))) {
        const ddl = stmt.replace(/^\s*--.*$/gm, '');
        if (/^\s*(CREATE|DROP|ALTER)/im.test(ddl))
          assert.match(ddl, /ON CLUSTER prod/, `${m.name}: ${ddl.slice(0, 80)}`);
        const engine = /ENGINE\s*=\s*(\w+)/.exec(ddl)?.[1];
        if (engine) assert.match(engine, /^Replicated/, `${m.name} uses ${engine}`);
      }
    }
  });

  it('keeps the single-node variant free of cluster clauses', () => {
    for (const m of ingestMigrations()) {
      const sql = renderSql(m.up, single).replace(/^\s*--.*$/gm, '');
      assert.doesNotMatch(sql, /ON CLUSTER|Replicated|\{\{/, m.name);
    }
  });

  it('passes the engine’s own arguments after the replication path', () => {
    assert.equal(
      engineFor(cluster, 'ingest_batches', 'ReplacingMergeTree(state)'),
      "ReplicatedReplacingMergeTree('/clickhouse/tables/{shard}/tooltrail/ingest_batches', '{replica}', state)",
    );
    assert.equal(engineFor(single, 'x', 'ReplacingMergeTree(state)'), 'ReplacingMergeTree(state)');
  });

  it('enables insert deduplication on every table the ingest writes with tokens', () => {
    for (const m of ingestMigrations().filter((x) => x.version <= 3)) {
      assert.match(m.up, /non_replicated_deduplication_window\s*=\s*[1-9]/, m.name);
    }
  });
});
