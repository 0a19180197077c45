/**
 * An attacker with write access to every table (rows, the log's tiles and entries and its checkpoints, even the
 * signing key) rewrites a row and rebuilds the tree: a checkpoint published to a witness before the change catches it.
 * Rows altered or removed fail their inclusion proof; an export's proofs verify offline.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CANONICAL_VERSION } from '../../../audit/canonical.ts';
import { buildBundle, verifyBundle } from '../../../audit/log/bundle.ts';
import { checkpointText } from '../../../audit/log/checkpoint.ts';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { leafHashes } from '../../../audit/log/hashes.ts';
import { generateNoteKey, parseSigner, parseVerifier, signNote } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { TileEdge } from '../../../audit/log/tiles.ts';
import { verifyHeldCheckpoint, verifyLogs } from '../../../audit/log/verify-log.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { loggedLeaves } from '../../../testkit/audit-log.ts';
import { serializeSpans, stampTenant, syntheticRequest } from '../../../testkit/ingest.ts';
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

  /** The level-0 tile's hashes with leaf `i`'s replaced by the 32 bytes of SQL expression `by`. */
  const leafReplaced = (i: number, by: string) =>
    `concat(substring(hashes, 1, ${32 * i}), ${by}, substring(hashes, ${32 * i + 33}))`;

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
    // The attacker recomputes the victim's entry hash, rebuilds every tile, and re-signs fresh checkpoints.
    const leaves = await loggedLeaves(db, t.tenant, t.chain);
    const forged = leaves.map((l) =>
      l.row_id === victim && l.row_table === 'tool_calls'
        ? createHash('sha256').update(`forged ${l.entry_hash}`).digest('hex')
        : l.entry_hash,
    );
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles DELETE WHERE tenant = {tenant:String} AND log = {log:String}`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_checkpoints DELETE WHERE tenant = {tenant:String} AND log = {log:String}`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const f = new TileEdge();
    const entries = Buffer.concat(forged.map((h) => Buffer.from(h, 'hex')));
    const tiles = f.append(leafHashes(entries));
    const runs = leaves.map((l, i) => ({
      first: i,
      count: 1,
      table: l.row_table,
      ids: Buffer.concat([Buffer.from([Buffer.byteLength(l.row_id)]), Buffer.from(l.row_id)]),
      entries: entries.subarray(32 * i, 32 * i + 32),
      hour: 0,
      batchId: 'x',
      recordedMs: Date.now(),
      backfill: false,
      canonicalVersion: CANONICAL_VERSION,
    }));
    await t.store.append([{ id: t.id, tiles, entries: runs }]);
    const note = signNote(
      checkpointText({ origin: `tooltrail/${t.tenant}/${t.chain}`, size: f.size, root: f.root(), extensions: [] }),
      parseSigner(key.signer),
    );
    await t.store.storeCheckpoint({
      ...t.id,
      size: f.size,
      root_hash: f.root().toString('hex'),
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
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE hashes = ${leafReplaced(2, 'SHA256(substring(hashes, 65, 32))')} WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile' AND level = 0 AND idx = 0`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verifyLogs(t.store, { tenant: t.tenant, verifiers });
    // The leaf hashes are the tree's bottom row (no other copy of a node below 256 leaves): the signed roots go too.
    const sizes = (await t.store.checkpoints(t.id)).map((c) => Number(c.size_text));
    assert.deepEqual(
      r.issues.map((i) => [i.kind, i.size]),
      [['leaf_altered', null], ...sizes.map((s) => ['checkpoint_root_mismatch', s])],
    );
  });

  it('catches a leaf rewritten whole (entry and hash), its upper nodes left alone: the leaves no longer fold to the signed roots', async () => {
    const t = await loggedTenant();
    // Leaf 2: its entry (in the entries row that holds it) and its leaf hash (in tile 0) both replaced, consistently.
    const [run] = await (
      await db.ch.query({
        query: `SELECT toString(idx) AS first FROM ${db.database}.audit_log_tiles WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries' AND idx <= 2 AND idx + width > 2`,
        query_params: t.id,
        format: 'JSONEachRow',
      })
    ).json<{ first: string }>();
    const at = 2 - Number(run!.first);
    const forgedEntry = `SHA256(substring(hashes, ${32 * at + 1}, 32))`;
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE hashes = concat(substring(hashes, 1, ${32 * at}), ${forgedEntry}, substring(hashes, ${32 * at + 33})) WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries' AND idx = ${run!.first}`,
      query_params: t.id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const [forged] = await (
      await db.ch.query({
        query: `SELECT hex(SHA256(concat(unhex('00'), substring(hashes, ${32 * at + 1}, 32)))) AS leaf FROM ${db.database}.audit_log_tiles WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries' AND idx = ${run!.first}`,
        query_params: t.id,
        format: 'JSONEachRow',
      })
    ).json<{ leaf: string }>();
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE hashes = ${leafReplaced(2, `unhex('${forged!.leaf}')`)} WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile' AND level = 0 AND idx = 0`,
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
    // Nodes above the leaves are stored from 256 leaves on (level-1 tiles): a log of two batches of 300 rows.
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, {
      database: db.database,
      chain,
      log: { ...defaultLogConfig(), signer: parseSigner(key.signer), everyRows: 1, witnessDir },
    });
    const writer = createClickHouseWriter(db.ch, { database: db.database, batchStored: rec });
    for (let b = 0; b < 2; b++)
      await writer.writeRows(flatten(syntheticRequest({ tenant, toolSpans: 299, seed: 900 + b })), {
        dedupToken: uniqueName('batch'),
      });
    const id = { tenant, log: chain };
    const store = new LogStore(db.ch, db.database);
    // The root of leaves 0-255, in the level-1 tile.
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE hashes = concat(SHA256(hashes), substring(hashes, 33)) WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile' AND level = 1 AND idx = 0`,
      query_params: id,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verifyLogs(store, { tenant, verifiers });
    // Both checkpoints' trees hold the node: neither root is held any more; the leaves themselves still fold to them.
    const sizes = (await store.checkpoints(id)).map((c) => Number(c.size_text));
    assert.deepEqual(sizes, [300, 600]);
    assert.deepEqual(
      r.issues.map((i) => [i.kind, i.size]),
      sizes.map((s) => ['checkpoint_root_mismatch', s]),
    );
  });

  it('names leaves deleted from the log as a gap', async () => {
    const t = await loggedTenant();
    // The data of leaf 1 (the entries row that holds it) deleted.
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles DELETE WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries' AND idx <= 1 AND idx + width > 1`,
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

  it('gives no proof for a row whose leaf was hashed in a canonical version it does not know, and says so', async () => {
    const t = await loggedTenant();
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE canonical_version = 9 WHERE tenant = {tenant:String} AND kind = 'entries'`,
      query_params: { tenant: t.tenant },
      clickhouse_settings: { mutations_sync: '2' },
    });
    const bundle = await buildBundle(db.ch, t.store, db.database, t.tenant, t.calls.slice(0, 1));
    assert.deepEqual(bundle.calls, []);
    assert.deepEqual(bundle.not_provable, [
      { row_id: t.calls[0]!, reason: 'its leaf was hashed in canonical version 9, which this tooltrail does not know' },
    ]);
  });
});
