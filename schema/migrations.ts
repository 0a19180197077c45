/**
 * Versioned migrations: numbered `.up.sql`/`.down.sql` files in ./migrations, never edited after they ship.
 * Numbers are reserved per component so parallel work never collides:
 *   0001-0009 ingest (tool_calls, warnings, spans, ingest bookkeeping)
 *   0010-0019 alerts (owners, warning states, findings, evaluator state)
 *   0020-0029 reconstruction and tamper evidence (digests)
 *   0030-0039 dashboards (read-only user, views)
 *   0040-0049 alerts, second block (rollups the detectors read)
 *   0042-0044 tamper evidence, the log as tiles and its entries' canonical version (numbered after 0041, so a
 *             database already at 0041 applies them last and `migrate --down` reverts them first)
 * DDL cannot bind parameters, so the few placeholders ({{database}}, {{on_cluster}}, {{engine}},
 * {{retention_days}}) are filled from validated configuration only — never from request input.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { sqlFiles } from '../platform/sql-files.ts';
import { type SchemaConfig, SchemaConfigSchema } from './config.ts';

export const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** The cluster variant's Distributed tables (`<table>_all`), applied after the migrations on a cluster. */
export const DISTRIBUTED_SQL = join(dirname(fileURLToPath(import.meta.url)), 'cluster', 'distributed.sql');
const FILE_RE = /^(\d{4})_([a-z0-9_]+)\.(up|down)\.sql$/;
/** The migrations' own bookkeeping (schema_migrations). */
const sql = sqlFiles(new URL('./sql/', import.meta.url));

export interface Migration {
  version: number;
  name: string;
  up: string;
  down: string;
  checksum: string;
}

export function loadMigrations(dir = MIGRATIONS_DIR): Migration[] {
  const byVersion = new Map<number, Partial<Migration>>();
  for (const file of readdirSync(dir)) {
    const m = FILE_RE.exec(file);
    if (!m) continue;
    const version = Number(m[1]);
    const entry = byVersion.get(version) ?? { version, name: m[2] };
    if (entry.name !== m[2]) throw new Error(`migration ${m[1]} has two names: ${entry.name} and ${m[2]}`);
    entry[m[3] as 'up' | 'down'] = readFileSync(join(dir, file), 'utf8');
    byVersion.set(version, entry);
  }
  return [...byVersion.values()]
    .map((e) => {
      if (e.up === undefined || e.down === undefined)
        throw new Error(`migration ${e.version} needs both .up.sql and .down.sql`);
      return { ...(e as Migration), checksum: createHash('sha256').update(e.up).digest('hex').slice(0, 16) };
    })
    .sort((a, b) => a.version - b.version);
}

/** The engine clause for a table: MergeTree on one node, ReplicatedMergeTree on a cluster. */
export function engineFor(config: SchemaConfig, table: string, engine = 'MergeTree'): string {
  if (!config.cluster) return engine;
  // `ReplacingMergeTree(v)` -> `ReplicatedReplacingMergeTree('<zk path>', '{replica}', v)`: the engine's own
  // arguments come after the replication ones.
  const m = /^([A-Za-z]+)(?:\((.*)\))?$/.exec(engine);
  if (!m) throw new Error(`unsupported engine clause: ${engine}`);
  const own = m[2]?.trim() ? `, ${m[2].trim()}` : '';
  return `Replicated${m[1]}('/clickhouse/tables/{shard}/${config.database}/${table}', '{replica}'${own})`;
}

/** Fills the placeholders of one SQL file. `{{engine}}` or `{{engine:ReplacingMergeTree(v)}}`. */
export function renderSql(sql: string, config: SchemaConfig): string {
  const c = SchemaConfigSchema.parse(config);
  const onCluster = c.cluster ? `ON CLUSTER ${c.cluster}` : '';
  return splitStatements(sql)
    .map((stmt) => {
      const table =
        /(?:TABLE|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?\{\{database\}\}\.([A-Za-z0-9_]+)/i.exec(stmt)?.[1] ?? 'unknown';
      return stmt
        .replaceAll('{{database}}', c.database)
        .replaceAll('{{on_cluster}}', onCluster)
        .replaceAll('{{retention_days}}', String(c.retentionDays))
        .replace(/\{\{engine(?::([A-Za-z]+(?:\([^)]*\))?))?\}\}/g, (_m, engine?: string) =>
          engineFor(c, table, engine),
        );
    })
    .join(';\n');
}

/** The Distributed tables of the cluster variant, rendered; none for a single node. */
export function distributedStatements(config: SchemaConfig, sql = readFileSync(DISTRIBUTED_SQL, 'utf8')): string[] {
  const c = SchemaConfigSchema.parse(config);
  if (!c.cluster) return [];
  const cluster = c.cluster;
  return splitStatements(sql).map((s) =>
    s
      .replace(/^\s*--.*\n/gm, '')
      .replaceAll('{{database}}', c.database)
      .replaceAll('{{cluster}}', cluster)
      .trim(),
  );
}

/** Splits a file into statements on `;` at line ends, dropping comment-only chunks. */
export function splitStatements(sql: string): string[] {
  return sql
    .split(/;\s*(?:\n|$)/)
    .map((s) => s.trim())
    .filter((s) => s.split('\n').some((line) => line.trim() !== '' && !line.trim().startsWith('--')));
}

export interface MigrateResult {
  applied: number[];
  alreadyApplied: number[];
}

async function ensureBookkeeping(ch: ClickHouseClient, config: SchemaConfig): Promise<void> {
  for (const file of ['create_database', 'create_schema_migrations']) {
    for (const stmt of splitStatements(renderSql(sql(file), config))) await ch.command({ query: stmt });
  }
}

export async function appliedVersions(ch: ClickHouseClient, config: SchemaConfig): Promise<Map<number, string>> {
  const rs = await ch.query({
    query: sql('applied_versions'),
    query_params: { db: config.database },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ version: number; checksum: string }>();
  return new Map(rows.map((r) => [Number(r.version), r.checksum]));
}

/** Applies every migration not yet recorded, in order. Idempotent: a second run applies nothing. */
export async function migrateUp(
  ch: ClickHouseClient,
  config: SchemaConfig,
  migrations = loadMigrations(),
): Promise<MigrateResult> {
  await ensureBookkeeping(ch, config);
  const done = await appliedVersions(ch, config);
  const result: MigrateResult = { applied: [], alreadyApplied: [] };
  for (const m of migrations) {
    const recorded = done.get(m.version);
    if (recorded !== undefined) {
      if (recorded !== m.checksum) {
        throw new Error(
          `migration ${m.version}_${m.name} changed after it was applied (checksum ${recorded} -> ${m.checksum}); add a new migration instead`,
        );
      }
      result.alreadyApplied.push(m.version);
      continue;
    }
    for (const stmt of splitStatements(renderSql(m.up, config))) await ch.command({ query: stmt });
    await ch.insert({
      table: `${config.database}.schema_migrations`,
      values: [{ version: m.version, name: m.name, checksum: m.checksum }],
      format: 'JSONEachRow',
    });
    result.applied.push(m.version);
  }
  // Re-created every run so each Distributed table follows its local table's columns (they hold no data).
  for (const stmt of distributedStatements(config)) await ch.command({ query: stmt });
  return result;
}

/** Drops `database` and everything in it (a fresh demo, a throwaway test or bench database). */
export async function dropDatabase(ch: ClickHouseClient, database: string): Promise<void> {
  await ch.command({ query: sql('drop_database'), query_params: { db: database } });
}

/** Reverts the newest `steps` applied migrations. */
export async function migrateDown(
  ch: ClickHouseClient,
  config: SchemaConfig,
  steps = 1,
  migrations = loadMigrations(),
): Promise<number[]> {
  await ensureBookkeeping(ch, config);
  const done = await appliedVersions(ch, config);
  const toRevert = migrations
    .filter((m) => done.has(m.version))
    .reverse()
    .slice(0, steps);
  for (const m of toRevert) {
    for (const stmt of splitStatements(renderSql(m.down, config))) await ch.command({ query: stmt });
    await ch.command({
      query: sql('forget_version'),
      query_params: { db: config.database, v: m.version },
      clickhouse_settings: { mutations_sync: '1' },
    });
  }
  return toRevert.map((m) => m.version);
}
