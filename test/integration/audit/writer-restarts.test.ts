// test-lane: self-contained (a fresh database on the shared ClickHouse, nothing else shared; scripts/test-lanes.js)
/**
 * A restarted writer continues its chain from the head stored in ClickHouse, so `verify` stays clean on untouched
 * data across restarts: the head is read back in numeric order (seq 10 sorts before 9 as text).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { verifyDigests } from '../../../audit/verify.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./writer-child.ts', import.meta.url));

async function writerLife(db: TestDatabase, tenant: string, batches: number, seed: number): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, DATABASE: db.database, TENANT: tenant, BATCHES: String(batches), SEED: String(seed) },
  });
}

describe('audit chain across writer restarts', () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase('tt_restarts');
  });
  after(async () => {
    await db?.drop();
  });

  it('verify reports no issue on untouched data after ten restarts of the writer, batches in between', async () => {
    const tenant = uniqueName('t');
    const startMs = Date.now();
    // Twelve batches first: the head's seq reaches two digits, where text order and numeric order differ.
    await writerLife(db, tenant, 12, 0);
    for (let restart = 1; restart <= 10; restart++) await writerLife(db, tenant, 2, restart);
    const report = await verifyDigests(db.ch, db.schema, {
      tenant,
      from: new Date(startMs - 3_600_000),
      to: new Date(Date.now() + 3_600_000),
    });
    assert.deepEqual(
      report.issues.map((i) => i.kind),
      [],
      `verify found issues on untouched data: ${JSON.stringify(report.issues.slice(0, 5))}`,
    );
    const rs = await db.ch.query({
      query:
        'SELECT toString(count()) AS n, toString(max(seq)) AS top FROM {db:Identifier}.row_digests WHERE tenant = {t:String}',
      query_params: { db: db.database, t: tenant },
      format: 'JSONEachRow',
    });
    const [{ n, top }] = (await rs.json()) as [{ n: string; top: string }];
    assert.equal(top, n, 'one record per batch, numbered 1..n without a repeat');
    assert.equal(Number(n), 32);
  });
});
