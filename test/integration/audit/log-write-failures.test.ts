/**
 * The recorder writes a batch's Merkle log tiles and entries in one insert before the batch is acknowledged. When it
 * fails (or lands and its answer is lost, or the writer is killed while it is in flight), `record` does not resolve,
 * the batch is retried with its dedup token, and after the retry every row is a leaf and verify (rows and log)
 * passes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { generateNoteKey, parseSigner, parseVerifier } from '../../../audit/log/note.ts';
import { verifyRange } from '../../../audit/log/verify-range.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { loggedCount } from '../../../testkit/audit-log.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { until } from '../../../testkit/wait.ts';

const CHILD = fileURLToPath(new URL('./log-writer-child.ts', import.meta.url));
const key = generateNoteKey('audit.test');
const verifiers = [parseVerifier(key.verifier)];

/** The table an insert goes to, whether by `insert` (JSON) or `exec` (Native). */
const tableOf = (p: string | symbol, a: { table?: string; query?: string }) =>
  p === 'insert' ? a.table : /^INSERT INTO (\S+)/.exec(a.query ?? '')?.[1];

/** The real client, except that the second insert into `table` fails (after it landed, when `landed`). */
function failingOnce(ch: ClickHouseClient, table: string, landed: boolean): ClickHouseClient {
  let seen = 0;
  return new Proxy(ch, {
    get(target, p) {
      const v = Reflect.get(target, p);
      if (p !== 'insert' && p !== 'exec') return typeof v === 'function' ? v.bind(target) : v;
      const call = (a: unknown) => (v as (a: unknown) => Promise<unknown>).call(target, a);
      return async (a: { table?: string; query?: string }) => {
        if (!tableOf(p, a)?.endsWith(`.${table}`) || ++seen !== 2) return call(a);
        if (landed) {
          const r = (await call(a)) as { stream?: NodeJS.ReadableStream };
          r.stream?.resume();
        }
        throw new Error(`test: the insert into ${table} failed`);
      };
    },
  });
}

async function count(db: TestDatabase, sql: string, params: Record<string, unknown>): Promise<number> {
  const rs = await db.ch.query({ query: sql, query_params: { db: db.database, ...params }, format: 'JSONEachRow' });
  const [row] = (await rs.json()) as [{ n: string }];
  return Number(row.n);
}

const leavesOf = (db: TestDatabase, tenant: string, log: string) => loggedCount(db, { tenant, log });
const callsOf = (db: TestDatabase, tenant: string) =>
  count(db, 'SELECT toString(count()) AS n FROM {db:Identifier}.tool_calls WHERE tenant = {tenant:String}', {
    tenant,
  });

function batch(tenant: string, seed: number, startMs: number) {
  return flatten(syntheticRequest({ tenant, toolSpans: 20, seed, startMs }));
}
const entriesOf = (rows: ReturnType<typeof batch>) =>
  rows.toolCalls.length + rows.spans.length + new Set(rows.warnings.map((w) => w.span_id)).size;

/** A writer whose recorder has a fresh log state (as a restarted process would read the tree back). */
function writerOn(ch: ClickHouseClient, database: string, chain: string) {
  const recorder = createDigestRecorder(ch, {
    database,
    chain,
    log: { ...defaultLogConfig(), signer: parseSigner(key.signer), everyRows: 1_000_000, everySeconds: 3600 },
  });
  return { recorder, writer: createClickHouseWriter(ch, { database, batchStored: recorder }) };
}

async function assertVerified(db: TestDatabase, tenant: string, startMs: number) {
  const report = await verifyRange(db.ch, db.schema, {
    tenant,
    from: new Date(startMs - 3_600_000),
    to: new Date(startMs + 3_600_000),
    verifiers,
    rows: true,
  });
  assert.deepEqual(
    [...report.issues.map((i) => i.kind), ...(report.log?.issues.map((i) => i.kind) ?? [])],
    [],
    JSON.stringify([report.issues.slice(0, 3), report.log?.issues.slice(0, 3)]),
  );
  assert.equal(report.ok, true);
}

describe('a batch whose log insert fails', () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase('tt_logfail');
  });
  after(async () => {
    await db?.drop();
  });

  for (const [table, landed] of [
    ['audit_log_tiles', false],
    ['audit_log_tiles', true],
  ] as const) {
    it(`is not acknowledged when its ${table} insert fails${landed ? ' after landing' : ''}, and its retry logs every row (verify passes)`, async () => {
      const tenant = uniqueName('t');
      const chain = uniqueName('w');
      const startMs = Date.now();
      const token = uniqueName('batch');
      const first = batch(tenant, 1, startMs);
      const failing = writerOn(failingOnce(db.ch, table, landed), db.database, chain);
      await failing.writer.writeRows(batch(tenant, 0, startMs), { dedupToken: uniqueName('batch') });
      await assert.rejects(failing.writer.writeRows(first, { dedupToken: token }), /test: the insert/);
      // The same writer retries the batch, as the ingest does before committing its offsets.
      await failing.writer.writeRows(batch(tenant, 1, startMs), { dedupToken: token });
      await failing.recorder.flushCheckpoints?.();
      const logged = await leavesOf(db, tenant, chain);
      const expected = entriesOf(batch(tenant, 0, startMs)) + entriesOf(first);
      // Leaves that landed in the failed attempt stay: the retry appends its rows again (one more leaf per row).
      assert.equal(logged, landed ? expected + entriesOf(first) : expected);
      await assertVerified(db, tenant, startMs);
    });
  }

  it('a writer killed -9 while its log insert was in flight (the rows stored): the retry logs every row, verify passes', async () => {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const startMs = Date.now();
    const token = uniqueName('batch');
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD], {
      env: {
        ...process.env,
        DATABASE: db.database,
        TENANT: tenant,
        CHAIN: chain,
        SEED: '7',
        START_MS: String(startMs),
        TOKEN: token,
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
    });
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    await until(
      'the rows landed while the log insert is under way',
      async () => out.includes('log-pending') && (await callsOf(db, tenant)) > 0,
      {
        timeoutMs: 60_000,
        everyMs: 100,
        describe: async () => `log-pending said: ${out.includes('log-pending')}; calls: ${await callsOf(db, tenant)}`,
      },
    );
    assert.equal(await callsOf(db, tenant), 20, 'the rows landed');
    assert.ok(out.includes('log-pending'), 'the log insert was under way');
    child.kill('SIGKILL');
    await exited;
    assert.ok(!out.includes('acknowledged'), 'the batch was never acknowledged');
    assert.equal(await leavesOf(db, tenant, chain), 0, 'no leaf landed');
    // The restarted writer: the batch was not acknowledged, so it comes again with its token.
    const { writer, recorder } = writerOn(db.ch, db.database, chain);
    const rows = batch(tenant, 7, startMs);
    await writer.writeRows(rows, { dedupToken: token });
    await recorder.flushCheckpoints?.();
    assert.equal(await leavesOf(db, tenant, chain), entriesOf(rows), 'every row is a leaf once');
    await assertVerified(db, tenant, startMs);
  });
});
