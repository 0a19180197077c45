/**
 * The Merkle log as the writer builds it (audit/log/): a leaf for every row, tiles and entries in ClickHouse, a signed
 * checkpoint every M leaves, published to a file witness; proofs read back from the table verify with an RFC 6962
 * computation written here, not the code under test.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { parseCheckpoint } from '../../../audit/log/checkpoint.ts';
import { defaultLogConfig, type LogConfig } from '../../../audit/log/config.ts';
import { generateNoteKey, openNote, parseSigner, parseVerifier } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { createDigestRecorder, type DigestRecorder } from '../../../audit/recorder.ts';
import { emptyFlattenResult, flatten, flattenInto } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { loggedLeaves } from '../../../testkit/audit-log.ts';
import { serializeSpans, stampTenant, syntheticRequest } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario } from '../reconstruct/scenario.ts';

// ---- RFC 6962 from its definitions (independent of audit/log/rfc6962.ts)
const sha = (...parts: Uint8Array[]) => {
  const h = createHash('sha256');
  for (const p of parts) h.update(p);
  return h.digest();
};
const split = (n: number) => 2 ** Math.ceil(Math.log2(n) - 1);
function mth(d: readonly Buffer[]): Buffer {
  if (d.length === 1) return sha(Buffer.from([0]), d[0]!);
  const s = split(d.length);
  return sha(Buffer.from([1]), mth(d.slice(0, s)), mth(d.slice(s)));
}
/** PROOF(m, D[n]) of RFC 6962 2.1.2, over leaf data. */
function subproof(m: number, d: readonly Buffer[], b: boolean): Buffer[] {
  if (m === d.length) return b ? [] : [mth(d)];
  const s = split(d.length);
  return m <= s
    ? [...subproof(m, d.slice(0, s), b), mth(d.slice(s))]
    : [...subproof(m - s, d.slice(s), false), mth(d.slice(0, s))];
}
/** Folds an inclusion proof the long way: rebuild the path's shape from (index, size) by recursion. */
function rootFromPath(leaf: Buffer, m: number, n: number, proof: Buffer[]): Buffer {
  if (n === 1) {
    assert.equal(proof.length, 0);
    return sha(Buffer.from([0]), leaf);
  }
  const s = split(n);
  const last = proof.at(-1)!;
  const rest = proof.slice(0, -1);
  return m < s
    ? sha(Buffer.from([1]), rootFromPath(leaf, m, s, rest), last)
    : sha(Buffer.from([1]), last, rootFromPath(leaf, m - s, n - s, rest));
}

async function ingest(db: TestDatabase, spans: ReadableSpan[], tenant: string, digests: DigestRecorder) {
  const rows = flatten(stampTenant(decodeExportTraceServiceRequest(serializeSpans(spans)), tenant));
  const writer = createClickHouseWriter(db.ch, { database: db.database, batchStored: digests });
  await writer.writeRows(rows, { dedupToken: uniqueName('batch') });
  return rows;
}

const leaves = loggedLeaves;

describe('the Merkle log built as batches are stored', () => {
  let db: TestDatabase;
  let witnessDir: string;
  const key = generateNoteKey('audit.test');
  before(async () => {
    db = await freshDatabase('tt_merkle');
    witnessDir = mkdtempSync(join(tmpdir(), 'tt-witness-'));
  });
  after(async () => {
    await db?.drop();
    rmSync(witnessDir, { recursive: true, force: true });
  });

  const config = (o: Partial<LogConfig> = {}): LogConfig => ({
    ...defaultLogConfig(),
    signer: parseSigner(key.signer),
    everyRows: 1_000_000,
    everySeconds: 3600,
    witnessDir,
    ...o,
  });

  it('appends one leaf per digest entry, in record order, and the tree holds the RFC 6962 root of them', async () => {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, { database: db.database, chain, log: config() });
    const written = [];
    for (let b = 0; b < 3; b++) written.push(await ingest(db, runScenario(uniqueName('s')).spans, tenant, rec));
    await rec.flushCheckpoints?.();
    const stored = await leaves(db, tenant, chain);
    const entries = written.reduce((n, r) => n + r.toolCalls.length + r.spans.length + 1, 0);
    assert.equal(stored.length, entries, 'tool calls + spans + one warning group per batch');
    assert.deepEqual(
      stored.map((l) => Number(l.i)),
      stored.map((_, i) => i),
      'leaf indices have no gap',
    );
    const store = new LogStore(db.ch, db.database);
    const root = await store.rootAt({ tenant, log: chain }, stored.length);
    assert.equal(root.toString('hex'), mth(stored.map((l) => Buffer.from(l.entry_hash, 'hex'))).toString('hex'));
  });

  it('signs a checkpoint every M leaves, stores it, and writes it to the file witness', async () => {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, { database: db.database, chain, log: config({ everyRows: 5 }) });
    for (let b = 0; b < 2; b++) await ingest(db, runScenario(uniqueName('s')).spans, tenant, rec);
    const store = new LogStore(db.ch, db.database);
    const cps = await store.checkpoints({ tenant, log: chain });
    assert.equal(cps.length, 2, 'one per batch: each batch adds more than 5 leaves');
    const verifier = parseVerifier(key.verifier);
    for (const c of cps) {
      const opened = openNote(c.note, [verifier]);
      assert.ok(opened.ok, JSON.stringify(opened));
      const cp = parseCheckpoint(opened.text);
      assert.equal(cp.origin, `tooltrail/${tenant}/${chain}`);
      assert.equal(String(cp.size), c.size_text);
      assert.equal(cp.root.toString('hex'), c.root_hash);
      assert.equal(c.key_id, verifier.keyId);
    }
    const files = readdirSync(join(witnessDir, tenant, chain)).sort();
    assert.deepEqual(files, [...cps.map((c) => `${c.size_text}.checkpoint`), 'latest'].sort());
    assert.equal(readFileSync(join(witnessDir, tenant, chain, 'latest'), 'utf8'), cps.at(-1)!.note);
  });

  it('gives inclusion proofs that take each leaf to the signed root (checked by recursion, not the code under test)', async () => {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, { database: db.database, chain, log: config() });
    for (let b = 0; b < 2; b++) await ingest(db, runScenario(uniqueName('s')).spans, tenant, rec);
    await rec.flushCheckpoints?.();
    const store = new LogStore(db.ch, db.database);
    // The first batch is checkpointed at once (no checkpoint yet), the second by the flush: take the newest.
    const cp = (await store.checkpoints({ tenant, log: chain })).at(-1);
    const size = Number(cp!.size_text);
    const stored = await leaves(db, tenant, chain);
    assert.equal(size, stored.length);
    for (const l of stored) {
      const proof = await store.inclusionProof({ tenant, log: chain }, Number(l.i), size);
      const root = rootFromPath(Buffer.from(l.entry_hash, 'hex'), Number(l.i), size, proof);
      assert.equal(root.toString('hex'), cp!.root_hash, `leaf ${l.i}`);
    }
  });

  it('gives proofs across tiles (two full tiles, a partial one, a level-1 tile), equal to RFC 6962 computed here', async () => {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, { database: db.database, chain, log: config({ everyRows: 1 }) });
    const writer = createClickHouseWriter(db.ch, { database: db.database, batchStored: rec });
    // 3 batches of 3 traces of 80 tool spans: 243 leaves each (a tile boundary falls inside every batch).
    for (let b = 0; b < 3; b++) {
      const rows = emptyFlattenResult();
      for (let m = 0; m < 3; m++)
        flattenInto(rows, syntheticRequest({ tenant, toolSpans: 80, seed: 700 + 10 * b + m, startMs: Date.now() }));
      await writer.writeRows(rows, { dedupToken: uniqueName('batch') });
    }
    const store = new LogStore(db.ch, db.database);
    const id = { tenant, log: chain };
    const stored = await leaves(db, tenant, chain);
    assert.equal(stored.length, 729);
    const data = stored.map((l) => Buffer.from(l.entry_hash, 'hex'));
    const cps = await store.checkpoints(id);
    assert.deepEqual(
      cps.map((c) => Number(c.size_text)),
      [243, 486, 729],
    );
    for (const c of cps) {
      const size = Number(c.size_text);
      assert.equal(c.root_hash, mth(data.slice(0, size)).toString('hex'), `root of ${size}`);
      for (let i = 0; i < size; i += 13) {
        const proof = await store.inclusionProof(id, i, size);
        assert.equal(rootFromPath(data[i]!, i, size, proof).toString('hex'), c.root_hash, `leaf ${i} of ${size}`);
      }
    }
    for (const [m, n] of [
      [243, 486],
      [243, 729],
      [486, 729],
      [256, 729],
      [1, 729],
    ] as const)
      assert.deepEqual(
        (await store.consistencyProof(id, m, n)).map((h) => h.toString('hex')),
        subproof(m, data.slice(0, n), true).map((h) => h.toString('hex')),
        `consistency ${m} -> ${n}`,
      );
  });

  it('continues the tree of a restarted writer at the next index, with the same root as one uninterrupted writer', async () => {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    await ingest(
      db,
      runScenario(uniqueName('s')).spans,
      tenant,
      createDigestRecorder(db.ch, { database: db.database, chain, log: config() }),
    );
    // A new recorder (as after a restart) reads the right edge back from the table.
    await ingest(
      db,
      runScenario(uniqueName('s')).spans,
      tenant,
      createDigestRecorder(db.ch, { database: db.database, chain, log: config() }),
    );
    const stored = await leaves(db, tenant, chain);
    assert.deepEqual(
      stored.map((l) => Number(l.i)),
      stored.map((_, i) => i),
    );
    const root = await new LogStore(db.ch, db.database).rootAt({ tenant, log: chain }, stored.length);
    assert.equal(root.toString('hex'), mth(stored.map((l) => Buffer.from(l.entry_hash, 'hex'))).toString('hex'));
  });
});
