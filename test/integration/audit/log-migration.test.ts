/**
 * An audit trail written before the tiles (fixtures/log-v1: stored by the code of e7688e0, the Merkle log one row per
 * node in audit_log_nodes beside the digest chain; generate.ts says how) loaded into a database at migration 0023,
 * then migrated (0042-0044: the tiles, the entries' canonical version): `tooltrail verify` and `tooltrail checkpoint
 * verify` pass on it, its witnessed checkpoints and its proofs still verify, the writer continues the same tree, and
 * tampering is still caught.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { buildBundle, verifyBundle } from '../../../audit/log/bundle.ts';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { parseSigner, parseVerifier } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { verifyRange } from '../../../audit/log/verify-range.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { registerCheckpointCommands } from '../../../cli/commands/checkpoint/command.ts';
import { registerReconstructCommands } from '../../../cli/commands/reconstruct/command.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { createClickHouse } from '../../../platform/clickhouse.ts';
import type { SchemaConfig } from '../../../schema/config.ts';
import { loadMigrations, migrateUp } from '../../../schema/migrations.ts';
import { loggedCount } from '../../../testkit/audit-log.ts';
import { runCliInProcess } from '../../../testkit/cli-in-process.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { requireClickHouse, services, type TestDatabase, uniqueName } from '../../../testkit/services.ts';

const FIXTURE = fileURLToPath(new URL('./fixtures/log-v1/', import.meta.url));
const TABLES = ['tool_calls', 'tool_call_warnings', 'spans', 'row_digests', 'audit_log_nodes', 'audit_checkpoints'];
const fixture = JSON.parse(readFileSync(join(FIXTURE, 'fixture.json'), 'utf8')) as {
  tenant: string;
  log: string;
  signer: string;
  verifier: string;
  from: string;
  to: string;
  calls: string[];
};
const witnessed = (name: string) => join(FIXTURE, 'witness', fixture.tenant, fixture.log, name);
const verifiers = [parseVerifier(fixture.verifier)];
const id = { tenant: fixture.tenant, log: fixture.log };

describe('an audit trail written before the tiles, migrated', () => {
  let db: TestDatabase;
  before(async () => {
    await requireClickHouse();
    const ch = createClickHouse({ ...services.clickhouse, requestTimeoutMs: 120_000 });
    // The fixture's rows are of 2026-12-01: a retention long enough that the TTL does not take them (until 2036).
    const schema: SchemaConfig = { database: uniqueName('tt_logv1'), retentionDays: 3650 };
    db = {
      ch,
      schema,
      database: schema.database,
      async drop() {
        await ch.command({ query: `DROP DATABASE IF EXISTS ${schema.database}` });
        await ch.close();
      },
    };
    // The schema as the fixture's writer had it: every migration before the tiles.
    await migrateUp(
      ch,
      schema,
      loadMigrations().filter((m) => m.version < 42),
    );
    for (const table of TABLES) {
      const body = readFileSync(join(FIXTURE, `${table}.native`));
      if (body.length === 0) continue;
      const r = await ch.exec({
        query: `INSERT INTO ${schema.database}.${table} FORMAT Native`,
        values: Readable.from([body], { objectMode: false }),
        clickhouse_settings: { wait_end_of_query: 1 },
      });
      await finished(r.stream.resume());
    }
    const applied = await migrateUp(ch, schema);
    assert.deepEqual(applied.applied, [42, 43, 44]);
  });
  after(async () => {
    await db?.drop();
  });

  const env = () => ({ TOOLTRAIL_CLICKHOUSE_DATABASE: db.database, TOOLTRAIL_CHECKPOINT_VERIFIERS: fixture.verifier });
  const cli = (args: string[]) =>
    runCliInProcess([registerReconstructCommands, registerCheckpointCommands], args, env());
  const verify = () =>
    verifyRange(db.ch, db.schema, {
      tenant: fixture.tenant,
      from: new Date(fixture.from),
      to: new Date(fixture.to),
      rows: true,
      verifiers,
    });

  it('copies every leaf and the tiles of the stored nodes: the tree, its checkpoints and its rows verify', async () => {
    assert.equal(await loggedCount(db, id), 405, 'the 405 leaves of the three logged batches');
    const r = await verify();
    assert.deepEqual(r.issues, []);
    assert.deepEqual(r.log?.issues, []);
    assert.equal(r.ok, true);
    // 4 batches: 327 tool calls + 4 spans + 83 warning groups; the first one only in the digest records.
    assert.equal(r.checked.rows, 414);
    assert.deepEqual(
      r.log?.logs.map((l) => [l.tenant, l.log, l.leaves, l.checkpoints]),
      [[fixture.tenant, fixture.log, 405, 3]],
    );
    assert.equal(r.chains.length, 1, 'the digest chain the fixture wrote is still walked');
  });

  it('tooltrail verify and tooltrail checkpoint verify pass on it, for every checkpoint the witness kept', async () => {
    const v = await cli(['verify', '--tenant', fixture.tenant, '--from', fixture.from, '--to', fixture.to]);
    assert.equal(v.code, 0, v.out + v.err);
    assert.match(v.out, /^VERIFIED/m);
    const files = readdirSync(join(FIXTURE, 'witness', fixture.tenant, fixture.log)).filter((f) => f !== 'latest');
    assert.deepEqual(files.sort(), ['13.checkpoint', '29.checkpoint', '405.checkpoint']);
    for (const f of files) {
      const c = await cli(['checkpoint', 'verify', witnessed(f)]);
      assert.equal(c.code, 0, `${f}: ${c.out}${c.err}`);
      assert.match(
        c.out,
        new RegExp(`VERIFIED: checkpoint ${fixture.tenant}/${fixture.log} of ${f.split('.')[0]} leaves`),
      );
    }
  });

  it('proves every logged call against the newest checkpoint; the call stored before the log has no proof', async () => {
    const bundle = await buildBundle(
      db.ch,
      new LogStore(db.ch, db.database),
      db.database,
      fixture.tenant,
      fixture.calls,
    );
    // The first batch (6 calls) was stored with the log off.
    assert.deepEqual(
      bundle.not_provable.map((n) => n.reason),
      Array(6).fill('no leaf of the log stands for the row'),
    );
    const v = verifyBundle(JSON.parse(JSON.stringify(bundle)), verifiers);
    assert.equal(v.ok, true, JSON.stringify(v.failures));
    assert.equal(v.verified, fixture.calls.length - 6);
  });

  it('the writer continues the migrated tree: the witnessed checkpoints are consistent with the ones it signs', async () => {
    const rec = createDigestRecorder(db.ch, {
      database: db.database,
      chain: fixture.log,
      log: { ...defaultLogConfig(), signer: parseSigner(fixture.signer), everyRows: 1 },
    });
    const startMs = new Date(fixture.from).getTime() + 2 * 3_600_000 + 120_000;
    const rows = flatten(syntheticRequest({ tenant: fixture.tenant, toolSpans: 140, seed: 99, startMs }));
    await createClickHouseWriter(db.ch, { database: db.database, batchStored: rec }).writeRows(rows, {
      dedupToken: uniqueName('batch'),
    });
    assert.equal(await loggedCount(db, id), 405 + 141);
    const r = await verify();
    assert.deepEqual([...r.issues, ...(r.log?.issues ?? [])], []);
    assert.equal(r.log?.logs[0]?.checkpoints, 4);
    for (const f of ['13.checkpoint', '405.checkpoint']) {
      const c = await cli(['checkpoint', 'verify', witnessed(f)]);
      assert.equal(c.code, 0, c.out + c.err);
      assert.match(c.out, /consistent with 546 leaves/);
    }
  });

  it('still catches a migrated tile rewritten and an old row altered', async () => {
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls UPDATE result_complete = NOT result_complete WHERE tenant = {tenant:String} AND span_id = {span:String}`,
      query_params: { tenant: fixture.tenant, span: fixture.calls[10] },
      clickhouse_settings: { mutations_sync: '2' },
    });
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE hashes = reverse(hashes) WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile' AND level = 0 AND idx = 0`,
      query_params: id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verify();
    assert.deepEqual(
      r.issues.map((i) => [i.kind, i.row_id]),
      [['row_changed', fixture.calls[10]]],
    );
    assert.ok(r.log?.issues.some((i) => i.kind === 'checkpoint_root_mismatch'));
    const c = await cli(['checkpoint', 'verify', witnessed('13.checkpoint')]);
    assert.equal(c.code, 1);
    assert.match(c.out, /FAILED \(checkpoint_root_mismatch\)/);
  });
});
