/**
 * The SQL adapter against a real PostgreSQL (Debian's package, started by `tooltrail services up`): a result cut by
 * LIMIT (the n+1 probe), a statement cancelled by statement_timeout, and rows hidden by row-level security.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';
import pg from 'pg';
import { probeLimit, sqlResult, withOptions } from '../../../instrumentation/adapters/index.ts';
import { collectAllPages } from '../../../instrumentation/pager.ts';
import { completenessState, isEvidenceOfAbsence } from '../../../instrumentation/results.ts';
import { requirePostgres, uniqueName } from '../../../testkit/services.ts';

const sql = (name: string) => readFileSync(new URL(`sql/${name}.sql`, import.meta.url), 'utf8');
const OWNERLESS = 25; // odd ids of 1..50
const OWNERLESS_ACME = 20; // odd ids that are not multiples of 5

let admin: pg.Client;
let db: pg.Client;
let database: string;

before(async () => {
  const url = await requirePostgres();
  admin = new pg.Client({ connectionString: url });
  await admin.connect();
  database = uniqueName('tt_sql').toLowerCase();
  // An identifier cannot be bound; uniqueName yields [a-z0-9_] only.
  await admin.query(`CREATE DATABASE ${database}`);
  const u = new URL(url);
  u.pathname = `/${database}`;
  db = new pg.Client({ connectionString: u.toString() });
  await db.connect();
  await db.query(sql('setup'));
});

after(async () => {
  await db?.end();
  if (database) await admin?.query(`DROP DATABASE IF EXISTS ${database}`);
  await admin?.end();
});

const page = (after: number, limit: number, client = db) =>
  client.query(sql('ownerless_accounts_page'), [after, probeLimit(limit)]);

test('a query cut by its LIMIT (the n+1 probe row came back) is RESULT_LIMIT_REACHED with exactly n rows', async () => {
  const rows = await page(0, 10);
  assert.equal(rows.rows.length, 11, 'PostgreSQL returned the probe row');
  const r = sqlResult.read(rows, { limit: 10, resource: 'service_accounts' });
  assert.equal(r.status, 'partial');
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['RESULT_LIMIT_REACHED'],
  );
  assert.equal(r.items?.length, 10);
  assert.equal(r.completeness.continuation.kind, 'narrow_query');
});

test('a result within the LIMIT is complete', async () => {
  const r = sqlResult.read(await page(0, 100), { limit: 100, resource: 'service_accounts' });
  assert.equal(r.status, 'complete');
  assert.equal(r.items?.length, OWNERLESS);
});

test('keyset pages read in one REPEATABLE READ snapshot are collected to a complete result with that snapshot', async () => {
  await db.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
  try {
    const snapshot = (await db.query<{ s: string }>('SELECT pg_export_snapshot() AS s')).rows[0]!.s;
    const adapter = withOptions(sqlResult, {
      limit: 7,
      snapshot,
      resource: 'service_accounts',
      keyset: (row) => String((row as { id: number }).id),
    });
    const r = await collectAllPages<{ id: number }>({
      fetchPage: ({ cursor, pageSize }) => page(cursor ? Number(cursor) : 0, pageSize),
      pageSize: 7,
      adapter,
    });
    assert.equal(r.status, 'complete', JSON.stringify(r.completeness));
    assert.equal(r.items?.length, OWNERLESS);
    assert.equal(r.pagination?.pages, 4);
    assert.equal(r.scope?.snapshot, snapshot);
  } finally {
    await db.query('COMMIT');
  }
});

test('a statement cancelled by statement_timeout (SQLSTATE 57014) is TIME_BUDGET_EXCEEDED, retry with a longer deadline', async () => {
  await db.query('BEGIN');
  let error: unknown;
  try {
    await db.query("SET LOCAL statement_timeout = '150ms'");
    await db.query(sql('slow_scan'));
  } catch (err) {
    error = err;
  } finally {
    await db.query('ROLLBACK');
  }
  assert.equal((error as { code?: string }).code, '57014', `expected a statement timeout, got ${String(error)}`);
  const r = sqlResult.read(error, { limit: 10 });
  assert.equal(r.status, 'error');
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['TIME_BUDGET_EXCEEDED'],
  );
  assert.equal(r.completeness.continuation.kind, 'retry_with_deadline');
  assert.equal(completenessState(r), 'incomplete_empty');
});

/** Runs `fn` as the RLS-bound reader of `tenant`, in a transaction rolled back afterwards. */
async function asReader<X>(tenant: string, fn: () => Promise<X>): Promise<X> {
  await db.query('BEGIN');
  try {
    await db.query('SET LOCAL ROLE tooltrail_rls_reader');
    await db.query("SELECT set_config('app.tenant', $1, true)", [tenant]);
    return await fn();
  } finally {
    await db.query('ROLLBACK');
  }
}

test('rows hidden by a row-level security policy: the adapter, told so, says VISIBILITY_RESTRICTED', async () => {
  const { rows, applies } = await asReader('acme', async () => ({
    rows: await page(0, 100),
    applies: (await db.query<{ applies: boolean }>(sql('row_security_applies'), ['service_accounts'])).rows[0]!.applies,
  }));
  assert.equal(applies, true, 'pg_class/pg_roles say the policy filters this role');
  assert.equal(rows.rows.length, OWNERLESS_ACME, 'the policy hid the other tenant');
  const told = sqlResult.read(rows, {
    limit: 100,
    resource: 'service_accounts',
    rowSecurity: 'policy tenant_isolation on service_accounts',
  });
  assert.equal(told.status, 'partial');
  assert.deepEqual(
    told.completeness.reasons.map((x) => x.code),
    ['VISIBILITY_RESTRICTED'],
  );
  assert.equal(told.completeness.reasons[0]?.source, 'policy tenant_isolation on service_accounts');
  // Not told, SQL itself cannot see the cut: that is why the caller must say so.
  assert.equal(sqlResult.read(rows, { limit: 100 }).status, 'complete');
});

test('a reader whose policy hides every row gets an incomplete empty result, never evidence of absence', async () => {
  const rows = await asReader('initech', () => page(0, 100));
  assert.equal(rows.rows.length, 0);
  const r = sqlResult.read(rows, {
    limit: 100,
    resource: 'service_accounts',
    rowSecurity: 'policy tenant_isolation on service_accounts',
  });
  assert.equal(completenessState(r), 'incomplete_empty');
  assert.equal(isEvidenceOfAbsence(r), false);
});

test('the superuser is not filtered by the policy, and the check says so', async () => {
  const applies = (await db.query<{ applies: boolean }>(sql('row_security_applies'), ['service_accounts'])).rows[0]!
    .applies;
  assert.equal(applies, false);
  assert.equal((await page(0, 100)).rows.length, OWNERLESS);
});

test('a table the role may not read (SQLSTATE 42501) is VISIBILITY_RESTRICTED', async () => {
  const error = await asReader('acme', () =>
    db.query(sql('secrets')).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  assert.equal((error as { code?: string }).code, '42501');
  const r = sqlResult.read(error, { limit: 10 });
  assert.equal(r.status, 'error');
  assert.deepEqual(
    r.completeness.reasons.map((x) => x.code),
    ['VISIBILITY_RESTRICTED'],
  );
});
