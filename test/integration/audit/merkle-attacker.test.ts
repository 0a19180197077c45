/**
 * An attacker with write access to every table (rows, digests, the log's nodes and checkpoints, even the signing
 * key) rewrites a row and rebuilds the tree: a checkpoint published to a witness before the change catches it.
 * Rows altered or removed fail their inclusion proof; an export's proofs verify offline.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { buildBundle, verifyBundle } from '../../../audit/log/bundle.ts';
import { checkpointText } from '../../../audit/log/checkpoint.ts';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { Frontier } from '../../../audit/log/frontier.ts';
import { generateNoteKey, parseSigner, parseVerifier, signNote } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { verifyHeldCheckpoint, verifyLogs } from '../../../audit/log/verify-log.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { serializeSpans, stampTenant } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario } from '../reconstruct/scenario.ts';

describe('tamper evidence against an attacker who can write every table', () => {
  let db: TestDatabase;
  let witnessDir: string;
  const key = generateNoteKey('audit.test');
  const verifiers = [parseVerifier(key.verifier)];
  before(async () => {
    db = await freshDatabase('tt_attack');
    witnessDir = mkdtempSync(join(tmpdir(), 'tt-witness-'));
  });
  after(async () => {
    await db?.drop();
    rmSync(witnessDir, { recursive: true, force: true });
  });

  /** Two batches through the real writer, a checkpoint after each, published to the file witness. */
  async function loggedTenant() {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, {
      database: db.database,
      chain,
      log: { ...defaultLogConfig(), signer: parseSigner(key.signer), everyRows: 1, witnessDir },
    });
    const calls: string[] = [];
    for (let b = 0; b < 2; b++) {
      const s = runScenario(uniqueName('s'));
      const rows = flatten(stampTenant(decodeExportTraceServiceRequest(serializeSpans(s.spans)), tenant));
      const writer = createClickHouseWriter(db.ch, { database: db.database, batchStored: rec });
      await writer.writeRows(rows, { dedupToken: uniqueName('batch') });
      calls.push(...rows.toolCalls.map((r) => String(r.span_id)));
    }
    const id = { tenant, log: chain };
    const witnessed = readFileSync(join(witnessDir, tenant, chain, 'latest'), 'utf8');
    return { tenant, chain, id, calls, witnessed, store: new LogStore(db.ch, db.database) };
  }

  async function alterRow(tenant: string, span: string) {
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls UPDATE result_complete = NOT result_complete WHERE tenant = {tenant:String} AND span_id = {span:String}`,
      query_params: { tenant, span },
      clickhouse_settings: { mutations_sync: '2' },
    });
  }

  it('verifies an untouched log: every stored checkpoint signed, still in the tree, consistent with the one before', async () => {
    const t = await loggedTenant();
    const r = await verifyLogs(t.store, { tenant: t.tenant, verifiers });
    assert.deepEqual(r.issues, []);
    assert.equal(r.logs.length, 1);
    assert.equal(r.logs[0]!.checkpoints, 2);
    const held = await verifyHeldCheckpoint(t.store, t.witnessed, verifiers);
    assert.equal(held.ok, true, JSON.stringify(held));
  });

  it('catches a row rewritten and the whole tree and checkpoints rebuilt with the stolen key: the witness copy is not consistent', async () => {
    const t = await loggedTenant();
    const victim = t.calls[1]!;
    await alterRow(t.tenant, victim);
    // The attacker recomputes the victim's entry hash, rebuilds every node, and re-signs fresh checkpoints.
    const rs = await db.ch.query({
      query: `SELECT toString(idx) AS i, entry_hash, row_table, row_id FROM ${db.database}.audit_log_nodes WHERE tenant = {tenant:String} AND log = {log:String} AND level = 0 ORDER BY idx`,
      query_params: t.id,
      format: 'JSONEachRow',
    });
    const leaves = await rs.json<{ i: string; entry_hash: string; row_table: string; row_id: string }>();
    const forged = leaves.map((l) =>
      l.row_id === victim && l.row_table === 'tool_calls'
        ? createHash('sha256').update(`forged ${l.entry_hash}`).digest('hex')
        : l.entry_hash,
    );
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_nodes DELETE WHERE tenant = {tenant:String} AND log = {log:String}`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_checkpoints DELETE WHERE tenant = {tenant:String} AND log = {log:String}`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const f = new Frontier();
    const nodes = forged.flatMap((h, i) => {
      const [leaf, ...above] = f.append(Buffer.from(h, 'hex'));
      return [
        { ...leaf!, table: leaves[i]!.row_table, rowId: leaves[i]!.row_id, entryHash: h, hour: 0, batchId: 'x' },
        ...above,
      ];
    });
    await t.store.appendNodes(t.id, nodes);
    const note = signNote(
      checkpointText({ origin: `tooltrail/${t.tenant}/${t.chain}`, size: f.size, root: f.root()!, extensions: [] }),
      parseSigner(key.signer),
    );
    await t.store.storeCheckpoint({
      ...t.id,
      size: f.size,
      root_hash: f.root()!.toString('hex'),
      key_name: 'audit.test',
      key_id: verifiers[0]!.keyId,
      note,
      publishedMs: Date.now(),
    });
    // Everything inside the database agrees with itself now...
    assert.deepEqual((await verifyLogs(t.store, { tenant: t.tenant, verifiers })).issues, []);
    // ...but not with the checkpoint the witness holds.
    const held = await verifyHeldCheckpoint(t.store, t.witnessed, verifiers);
    assert.equal(held.ok, false);
    assert.equal((held as { reason: string }).reason, 'checkpoint_root_mismatch');
  });

  it('catches a leaf hash edited in place: it no longer hashes its entry', async () => {
    const t = await loggedTenant();
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_nodes UPDATE hash = lower(hex(SHA256(hash))) WHERE tenant = {tenant:String} AND log = {log:String} AND level = 0 AND idx = 2`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verifyLogs(t.store, { tenant: t.tenant, verifiers });
    assert.deepEqual(
      r.issues.map((i) => i.kind),
      ['leaf_altered'],
    );
  });

  it('catches a leaf rewritten whole (entry and hash), its upper nodes left alone: the leaves no longer fold to the signed roots', async () => {
    const t = await loggedTenant();
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_nodes UPDATE entry_hash = lower(hex(SHA256(entry_hash))), hash = lower(hex(SHA256(concat(unhex('00'), SHA256(entry_hash))))) WHERE tenant = {tenant:String} AND log = {log:String} AND level = 0 AND idx = 2`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verifyLogs(t.store, { tenant: t.tenant, verifiers });
    const sizes = (await t.store.checkpoints(t.id)).map((c) => Number(c.size_text));
    assert.deepEqual(
      r.issues.map((i) => [i.kind, i.size]),
      sizes.map((s) => ['checkpoint_root_mismatch', s]),
    );
  });

  it('catches a node above the leaves rewritten: the tree no longer holds the signed root', async () => {
    const t = await loggedTenant();
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_nodes UPDATE hash = lower(hex(SHA256(hash))) WHERE tenant = {tenant:String} AND log = {log:String} AND level = 2 AND idx = 0`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verifyLogs(t.store, { tenant: t.tenant, verifiers });
    // The first checkpoint's subtree holds the node: its root is gone, and no proof joins it to the next.
    const sizes = (await t.store.checkpoints(t.id)).map((c) => Number(c.size_text));
    assert.deepEqual(
      r.issues.map((i) => [i.kind, i.size]),
      [
        ['checkpoint_root_mismatch', sizes[0]],
        ['checkpoint_inconsistent', sizes[1]],
      ],
    );
  });

  it('names leaves deleted from the log as a gap', async () => {
    const t = await loggedTenant();
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_nodes DELETE WHERE tenant = {tenant:String} AND log = {log:String} AND level = 0 AND idx = 1`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verifyLogs(t.store, { tenant: t.tenant, verifiers });
    assert.ok(
      r.issues.some((i) => i.kind === 'leaf_gap'),
      JSON.stringify(r.issues),
    );
  });

  it('proves every call of an export offline; an altered text or proof fails; an altered or removed row has no proof', async () => {
    const t = await loggedTenant();
    const bundle = await buildBundle(db.ch, t.store, db.database, t.tenant, t.calls);
    assert.deepEqual(bundle.not_provable, []);
    assert.equal(bundle.calls.length, t.calls.length);
    const ok = verifyBundle(JSON.parse(JSON.stringify(bundle)), verifiers);
    assert.equal(ok.ok, true, JSON.stringify(ok.failures));
    assert.equal(ok.verified, t.calls.length);

    const edited = structuredClone(bundle);
    edited.calls[0]!.canonical_text = edited.calls[0]!.canonical_text.replace('true', 'false');
    assert.notEqual(edited.calls[0]!.canonical_text, bundle.calls[0]!.canonical_text);
    assert.deepEqual(
      verifyBundle(edited, verifiers).failures.map((f) => f.row_id),
      [bundle.calls[0]!.row_id],
    );
    const badProof = structuredClone(bundle);
    badProof.calls[1]!.inclusion_proof.reverse();
    assert.equal(verifyBundle(badProof, verifiers).ok, false);
    assert.equal(
      verifyBundle(bundle, [parseVerifier(generateNoteKey('audit.test').verifier)]).ok,
      false,
      'untrusted key',
    );

    await alterRow(t.tenant, t.calls[0]!);
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls DELETE WHERE tenant = {tenant:String} AND span_id = {span:String}`,
      query_params: { tenant: t.tenant, span: t.calls[2]! },
      clickhouse_settings: { mutations_sync: '2' },
    });
    const after = await buildBundle(db.ch, t.store, db.database, t.tenant, t.calls);
    assert.deepEqual(
      after.not_provable.map((n) => [n.row_id, n.reason]),
      [
        [t.calls[0]!, 'the stored row differs from the one the log recorded'],
        [t.calls[2]!, 'the row is not stored'],
      ],
    );
  });
});
