import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  distributedStatements,
  engineFor,
  loadMigrations,
  type Migration,
  renderSql,
  splitStatements,
} from '../../../schema/migrations.ts';

const cluster = { database: 'tooltrail', retentionDays: 400, cluster: 'prod' };
const single = { database: 'tooltrail', retentionDays: 400 };
const ingestMigrations = () => loadMigrations().filter((m) => m.version <= 9);

/** Every DDL statement of these migrations, rendered for a cluster, runs ON CLUSTER with a Replicated engine. */
function assertClusterVariant(migrations: readonly Migration[]): void {
  for (const m of migrations) {
    for (const stmt of splitStatements(renderSql(m.up, cluster))) {
      const ddl = stmt.replace(/^\s*--.*$/gm, '');
      if (/^\s*(CREATE|DROP|ALTER)/im.test(ddl)) assert.match(ddl, /ON CLUSTER prod/, `${m.name}: ${ddl.slice(0, 80)}`);
      const engine = /ENGINE\s*=\s*(\w+)/.exec(ddl)?.[1];
      if (engine) assert.match(engine, /^Replicated/, `${m.name} uses ${engine}`);
    }
  }
}

describe('schema variants', () => {
  it('puts every ingest DDL statement ON CLUSTER with a Replicated engine in the cluster variant', () => {
    assertClusterVariant(ingestMigrations());
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

  it('puts every migration statement ON CLUSTER with a Replicated engine in the cluster variant, not only the ingest ones', () => {
    assertClusterVariant(loadMigrations());
  });

  it('gives every table the migrations create a Distributed table over it, on a cluster only', () => {
    const created = loadMigrations()
      .flatMap((m) => [...m.up.matchAll(/CREATE TABLE IF NOT EXISTS \{\{database\}\}\.(\w+)/g)].map((x) => x[1]))
      .sort();
    const distributed = distributedStatements(cluster)
      .map((s) => /Distributed\(prod, tooltrail, (\w+),/.exec(s)?.[1])
      .sort();
    assert.deepEqual(distributed, created);
    for (const s of distributedStatements(cluster))
      assert.match(s, /^CREATE OR REPLACE TABLE tooltrail\.\w+_all ON CLUSTER prod AS /);
    assert.deepEqual(distributedStatements(single), []);
  });

  it("shards tool_calls by the detectors' own session key, so a session lands whole on one shard", () => {
    const detector = loadMigrations().find((m) => m.name === 'create_detector_tables')?.up ?? '';
    assert.match(
      detector,
      /if\(session_id = '', trace_id, session_id\) AS session, cityHash64\(tenant, session\) AS session_key/,
    );
    const toolCalls = distributedStatements(cluster).find((s) => s.includes('tool_calls_all')) ?? '';
    assert.match(
      toolCalls,
      /Distributed\(prod, tooltrail, tool_calls, cityHash64\(tenant, if\(session_id = '', trace_id, session_id\)\)\)$/,
    );
  });
});
