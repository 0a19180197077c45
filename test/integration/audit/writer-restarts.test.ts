// test-lane: self-contained (a fresh database on the shared ClickHouse, nothing else shared; scripts/test-lanes.js)
/**
 * A restarted writer continues its log from the tree stored in ClickHouse (its size and the partial tiles of its
 * right edge), so `verify` stays clean on untouched data across restarts, and no two rows share a leaf.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LogStore } from '../../../audit/log/store.ts';
import { verifyLogs } from '../../../audit/log/verify-log.ts';
import { verifyDigests } from '../../../audit/verify.ts';
import { loggedLeaves } from '../../../testkit/audit-log.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';

const run = promisify(execFile);
const CHILD = fileURLToPath(new URL('./writer-child.ts', import.meta.url));

async function writerLife(db: TestDatabase, tenant: string, batches: number, seed: number): Promise<void> {
  await run(process.execPath, ['--import', 'tsx', CHILD], {
    env: { ...process.env, DATABASE: db.database, TENANT: tenant, BATCHES: String(batches), SEED: String(seed) },
  });
}

describe('audit log across writer restarts', () => {
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
    // Twelve batches first, then ten lives of two.
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
    const [log] = await new LogStore(db.ch, db.database).logs(tenant);
    const leaves = await loggedLeaves(db, tenant, log!.log);
    assert.deepEqual(
      leaves.map((l) => Number(l.i)),
      leaves.map((_, i) => i),
      'one leaf per row, numbered 0..n-1 without a repeat',
    );
    // 32 batches of 3 tool calls and their trace's span.
    assert.equal(leaves.length, 32 * 4);
    const log2 = await verifyLogs(new LogStore(db.ch, db.database), { tenant, verifiers: [] });
    assert.deepEqual(log2.issues, [], 'the tree the restarted writers built is one tree');
  });
});
