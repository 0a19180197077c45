/**
 * The commands around the Merkle log, in-process against the real ClickHouse: `reconstruct --json` and `--html`
 * carry every call's leaf index and inclusion proof, `verify --bundle` checks them offline, `checkpoint verify`
 * checks a witness's copy, `verify --no-rows` checks the log's checkpoints without reading rows.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { generateNoteKey, parseSigner } from '../../../audit/log/note.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { registerCheckpointCommands } from '../../../cli/commands/checkpoint/command.ts';
import { registerReconstructCommands } from '../../../cli/commands/reconstruct/command.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { type CliResult, runCliInProcess } from '../../../testkit/cli-in-process.ts';
import { serializeSpans, stampTenant } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, type Scenario } from '../reconstruct/scenario.ts';

const cli = (args: string[], env: Record<string, string>): Promise<CliResult> =>
  runCliInProcess([registerReconstructCommands, registerCheckpointCommands], args, env);

describe('proofs in exports, checked by the CLI', () => {
  let db: TestDatabase;
  let dir: string;
  let s: Scenario;
  let env: Record<string, string>;
  const key = generateNoteKey('audit.test');
  const tenant = uniqueName('t');
  const chain = uniqueName('w');
  before(async () => {
    db = await freshDatabase('tt_proofcli');
    dir = mkdtempSync(join(tmpdir(), 'tt-proofs-'));
    s = runScenario(uniqueName('sess'));
    const rec = createDigestRecorder(db.ch, {
      database: db.database,
      chain,
      log: { ...defaultLogConfig(), signer: parseSigner(key.signer), witnessDir: join(dir, 'witness') },
    });
    const rows = flatten(stampTenant(decodeExportTraceServiceRequest(serializeSpans(s.spans)), tenant));
    await createClickHouseWriter(db.ch, { database: db.database, batchStored: rec }).writeRows(rows, {
      dedupToken: uniqueName('batch'),
    });
    env = { TOOLTRAIL_CLICKHOUSE_DATABASE: db.database, TOOLTRAIL_CHECKPOINT_VERIFIERS: key.verifier };
  });
  after(async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reconstruct --json carries a leaf index and inclusion proof for every call; verify --bundle checks it offline', async () => {
    const r = await cli(['reconstruct', '--session', s.session, '--tenant', tenant, '--json'], env);
    assert.equal(r.code, 0, r.err);
    const out = JSON.parse(r.out);
    const calls = out.sessions.flatMap((x: { entries: { kind: string; span_id: string }[] }) =>
      x.entries.filter((e) => e.kind === 'call').map((e) => e.span_id),
    );
    assert.ok(calls.length > 0);
    assert.equal(out.proofs.length, 1);
    assert.deepEqual(out.proofs[0].not_provable, []);
    assert.deepEqual(out.proofs[0].calls.map((c: { row_id: string }) => c.row_id).sort(), [...calls].sort());
    for (const c of out.proofs[0].calls) {
      assert.equal(typeof c.leaf_index, 'number');
      assert.ok(c.inclusion_proof.length > 0);
    }
    const file = join(dir, 'export.json');
    writeFileSync(file, r.out);
    // Offline: no database named (a database that does not exist would fail any query).
    const offline = { TOOLTRAIL_CLICKHOUSE_DATABASE: 'no_such_database', TOOLTRAIL_CHECKPOINT_VERIFIERS: key.verifier };
    const v = await cli(['verify', '--bundle', file], offline);
    assert.equal(v.code, 0, v.out + v.err);
    assert.match(v.out, new RegExp(`VERIFIED: tenant ${tenant}, ${calls.length} call\\(s\\) proven`));

    out.proofs[0].calls[0].canonical_text = out.proofs[0].calls[0].canonical_text.replace('"read"', '"mutation"');
    writeFileSync(file, JSON.stringify(out));
    const bad = await cli(['verify', '--bundle', file], offline);
    assert.equal(bad.code, 1);
    assert.match(bad.out, /FAILED/);
    const untrusted = await cli(['verify', '--bundle', file, '--key', generateNoteKey('audit.test').verifier], offline);
    assert.equal(untrusted.code, 1);
  });

  it('the HTML report has a proof section with every call', async () => {
    const file = join(dir, 'report.html');
    const r = await cli(['reconstruct', '--session', s.session, '--tenant', tenant, '--html', file], env);
    assert.equal(r.code, 0, r.err);
    const html = readFileSync(file, 'utf8');
    assert.match(html, /data-testid="proofs"/);
    assert.match(html, /tooltrail\.proof-bundle\.v2/);
  });

  it("checkpoint verify accepts the witness's copy, and refuses it under an untrusted key", async () => {
    const latest = join(dir, 'witness', tenant, chain, 'latest');
    const ok = await cli(['checkpoint', 'verify', latest], env);
    assert.equal(ok.code, 0, ok.out + ok.err);
    assert.match(ok.out, /^VERIFIED/);
    const other = await cli(['checkpoint', 'verify', latest, '--key', generateNoteKey('audit.test').verifier], env);
    assert.equal(other.code, 1);
    assert.match(other.out, /FAILED \(signature\)/);
  });

  it('verify --no-rows checks the log only and reports it', async () => {
    const from = new Date(s.startMs - 3_600_000).toISOString();
    const to = new Date(s.startMs + 3_600_000).toISOString();
    const r = await cli(['verify', '--tenant', tenant, '--from', from, '--to', to, '--no-rows', '--json'], env);
    assert.equal(r.code, 0, r.out + r.err);
    const report = JSON.parse(r.out);
    assert.equal(report.checked.rows, 0);
    assert.equal(report.log.ok, true);
    assert.equal(report.log.logs[0].checkpoints, 1);
    const rows = await cli(['verify', '--tenant', tenant, '--from', from, '--to', to, '--json'], env);
    assert.equal(rows.code, 0, rows.out + rows.err);
    assert.ok(JSON.parse(rows.out).checked.rows > 0, 'the rows are re-walked by default');
  });

  it('verify says the signatures were checked when the checkpoints were, by a trusted key, and not without one', async () => {
    const range = [
      '--from',
      new Date(s.startMs - 3_600_000).toISOString(),
      '--to',
      new Date(s.startMs + 3_600_000).toISOString(),
    ];
    const keyed = await cli(['verify', '--tenant', tenant, ...range], env);
    assert.equal(keyed.code, 0, keyed.out + keyed.err);
    assert.match(keyed.out, /^VERIFIED: .*; signatures checked$/m);
    const unkeyed = await cli(['verify', '--tenant', tenant, ...range, '--json'], {
      TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
    });
    assert.equal(JSON.parse(unkeyed.out).signatures_checked, false, unkeyed.out + unkeyed.err);
  });
});
