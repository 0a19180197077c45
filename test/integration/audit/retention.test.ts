/**
 * Retention without false alarms (audit/expiry.ts, audit/deletions.ts) against the real ClickHouse: rows the TTL
 * removed, or a recorded deletion request erased, verify clean as "expired by policy at T"; the same rows removed
 * outside the policy fail as deleted; the log's checkpoints still verify and the surviving rows keep their proofs.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { deleteByRequest, deletionText } from '../../../audit/deletions.ts';
import { buildBundle, verifyBundle } from '../../../audit/log/bundle.ts';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { generateNoteKey, parseSigner, parseVerifier, signNote } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { verifyRange } from '../../../audit/log/verify-range.ts';
import { createDigestRecorder, type DigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { serializeSpans, stampTenant } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { until } from '../../../testkit/wait.ts';
import { runScenario, type Scenario } from '../reconstruct/scenario.ts';

const HOUR = 3_600_000;
const DAY = 86_400_000;

describe('retention and deletion requests leave the audit verifiable', () => {
  let db: TestDatabase;
  const key = generateNoteKey('retention.test');
  const signer = parseSigner(key.signer);
  const verifiers = [parseVerifier(key.verifier)];
  before(async () => {
    db = await freshDatabase('tt_retention');
  });
  after(async () => {
    await db?.drop();
  });

  async function ingest(spans: ReadableSpan[], tenant: string, rec: DigestRecorder) {
    const rows = flatten(stampTenant(decodeExportTraceServiceRequest(serializeSpans(spans)), tenant));
    const writer = createClickHouseWriter(db.ch, { database: db.database, batchStored: rec });
    await writer.writeRows(rows, { dedupToken: uniqueName('batch') });
  }

  /** A tenant whose scenarios start at each of `starts` (ms), stored through the writer with the log on. */
  async function tenantWith(starts: number[]) {
    const tenant = uniqueName('t');
    const rec = createDigestRecorder(db.ch, {
      database: db.database,
      chain: uniqueName('w'),
      log: { ...defaultLogConfig(), signer, everyRows: 1_000_000, everySeconds: 3600 },
    });
    const scenarios: Scenario[] = [];
    for (const s of starts) {
      const sc = runScenario(uniqueName('s'), s);
      scenarios.push(sc);
      await ingest(sc.spans, tenant, rec);
    }
    await rec.flushCheckpoints?.();
    return { tenant, scenarios };
  }

  const verify = (tenant: string, from: number, to: number, o: { now?: number; keys?: boolean } = {}) =>
    verifyRange(db.ch, db.schema, {
      tenant,
      from: new Date(from),
      to: new Date(to),
      rows: true,
      verifiers: o.keys === false ? [] : verifiers,
      ...(o.now !== undefined ? { now: () => new Date(o.now!) } : {}),
    });

  async function storedCalls(tenant: string): Promise<number> {
    const rs = await db.ch.query({
      query: `SELECT count() AS n FROM ${db.database}.tool_calls WHERE tenant = {tenant:String}`,
      query_params: { tenant },
      format: 'JSONEachRow',
    });
    return Number((await rs.json<{ n: string }>())[0]!.n);
  }

  /** Every row of the tenant gone, its digests and leaves kept: what the TTL leaves behind. */
  async function removeRows(tenant: string) {
    for (const [table, tenantCol] of [
      ['tool_calls', 'tenant'],
      ['tool_call_warnings', 'tenant'],
      ['spans', 'Tenant'],
    ] as const)
      await db.ch.command({
        query: `ALTER TABLE ${db.database}.${table} DELETE WHERE ${tenantCol} = {tenant:String}`,
        query_params: { tenant },
        clickhouse_settings: { mutations_sync: '2' },
      });
  }

  const hourOf = (ms: number) => Math.floor(ms / HOUR) * HOUR;

  it('rows the retention TTL removed verify clean, as expired by policy at their hour plus the retention', async () => {
    // 401 days old with a 400-day TTL: ClickHouse drops them right after they are inserted, after the log recorded them.
    const start = hourOf(Date.now() - (db.schema.retentionDays + 1) * DAY) + 60_000;
    const { tenant } = await tenantWith([start]);
    // ClickHouse drops them in a merge just after the insert, not in it: a count right after may still see them.
    await until('the TTL removed the rows', async () => (await storedCalls(tenant)) === 0, { timeoutMs: 20_000 });
    const r = await verify(tenant, hourOf(start) - HOUR, Date.now());
    assert.equal(r.ok, true, JSON.stringify(r.issues));
    assert.deepEqual(
      r.expired.map((e) => [e.kind, e.policy, e.hour, e.expired_at]),
      [
        [
          'expired_by_policy',
          'retention',
          new Date(hourOf(start)).toISOString(),
          new Date(hourOf(start) + db.schema.retentionDays * DAY).toISOString(),
        ],
      ],
    );
    assert.ok(r.expired[0]!.rows > 0);
    assert.equal(r.log?.ok, true, 'the checkpoints and the tree outlive the rows');
    assert.equal(r.log?.logs[0]?.checkpoints, 1);
  });

  it('rows removed in the shape the TTL leaves fail as deleted before the retention ends, and verify as expired after', async () => {
    const start = hourOf(Date.now()) - 2 * HOUR + 60_000;
    const { tenant } = await tenantWith([start]);
    await removeRows(tenant);
    const range = [hourOf(start), hourOf(start) + HOUR] as const;
    const early = await verify(tenant, ...range);
    assert.equal(early.ok, false);
    assert.ok(early.issues.length > 0);
    assert.deepEqual([...new Set(early.issues.map((i) => i.kind))], ['row_deleted']);
    assert.deepEqual(early.expired, []);

    const late = await verify(tenant, ...range, { now: hourOf(start) + (db.schema.retentionDays + 1) * DAY });
    assert.equal(late.ok, true, JSON.stringify(late.issues));
    assert.deepEqual(
      late.expired.map((e) => e.policy),
      ['retention'],
    );
    assert.equal(late.expired[0]!.rows, early.issues.length, 'every row once deleted is now expired');
  });

  it('a recorded deletion request verifies as policy, the surviving rows keep their proofs, and a row deleted outside it fails', async () => {
    const first = hourOf(Date.now()) - 3 * HOUR + 60_000;
    const second = first + HOUR;
    const { tenant, scenarios } = await tenantWith([first, second]);
    const d = await deleteByRequest(
      db.ch,
      db.schema,
      {
        tenant,
        from: new Date(hourOf(first)),
        to: new Date(hourOf(first) + HOUR),
        requestedBy: 'dpo',
        reason: 'GDPR #7',
      },
      { signer },
    );
    const range = [hourOf(first), hourOf(second) + HOUR] as const;
    const r = await verify(tenant, ...range);
    assert.equal(r.ok, true, JSON.stringify(r.issues));
    assert.deepEqual(
      r.expired.map((e) => [e.policy, e.hour, e.expired_at, e.deletion_id, e.requested_by]),
      [['deletion_request', new Date(hourOf(first)).toISOString(), d.recordedAt.toISOString(), d.id, 'dpo']],
    );
    assert.deepEqual(
      r.deletions.map((x) => [x.id, x.signed, x.honoured]),
      [[d.id, true, true]],
    );

    const survivors = Object.values(scenarios[1]!.callSpan);
    const bundle = await buildBundle(db.ch, new LogStore(db.ch, db.database), db.database, tenant, survivors);
    assert.deepEqual(bundle.not_provable, []);
    const proofs = verifyBundle(JSON.parse(JSON.stringify(bundle)), verifiers);
    assert.equal(proofs.ok, true, JSON.stringify(proofs.failures));
    assert.equal(proofs.verified, survivors.length);

    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls DELETE WHERE tenant = {tenant:String} AND span_id = {span:String}`,
      query_params: { tenant, span: survivors[0] },
      clickhouse_settings: { mutations_sync: '2' },
    });
    const after = await verify(tenant, ...range);
    assert.equal(after.ok, false);
    assert.deepEqual(
      after.issues.map((i) => [i.kind, i.table, i.row_id]),
      [['row_deleted', 'tool_calls', survivors[0]]],
    );
  });

  it('a deletion record written straight into the table, unsigned or edited, is not honoured when checkpoint keys are given', async () => {
    const start = hourOf(Date.now()) - 4 * HOUR + 60_000;
    const { tenant } = await tenantWith([start]);
    const range = [hourOf(start), hourOf(start) + HOUR] as const;
    const forged = {
      tenant,
      deletion_id: 'forged-1',
      range_from: new Date(range[0]).toISOString().slice(0, 19).replace('T', ' '),
      range_to: new Date(range[1]).toISOString().slice(0, 19).replace('T', ' '),
      requested_by: 'mallory',
      reason: 'cover-up',
      recorded_at: new Date(range[1]).toISOString().slice(0, 23).replace('T', ' '),
      key_id: '',
      note: '',
    };
    // The edited one carries a genuine signature over another range.
    const genuine = signNote(
      deletionText({
        id: 'forged-2',
        tenant,
        from: new Date(range[0] - 24 * HOUR),
        to: new Date(range[0] - 23 * HOUR),
        requestedBy: 'mallory',
        reason: 'cover-up',
        recordedAt: new Date(range[1]),
      }),
      signer,
    );
    await db.ch.insert({
      table: `${db.database}.audit_deletions`,
      format: 'JSONEachRow',
      values: [forged, { ...forged, deletion_id: 'forged-2', key_id: signer.keyId, note: genuine }],
    });
    await removeRows(tenant);
    const r = await verify(tenant, ...range);
    assert.equal(r.ok, false);
    assert.deepEqual(
      r.deletions.map((x) => [x.id, x.honoured]),
      [
        ['forged-1', false],
        ['forged-2', false],
      ],
    );
    const kinds = r.issues.map((i) => i.kind);
    assert.equal(kinds.filter((k) => k === 'deletion_unverified').length, 2);
    assert.ok(kinds.includes('row_deleted'));
    assert.ok(r.issues.some((i) => i.kind === 'deletion_unverified' && /not signed/.test(i.statement)));
    assert.ok(r.issues.some((i) => i.kind === 'deletion_unverified' && /differ/.test(i.statement)));
    assert.deepEqual(r.expired, []);

    // Without trusted keys the records are honoured, and the report says their signatures were not checked.
    const unchecked = await verify(tenant, ...range, { keys: false });
    assert.deepEqual(unchecked.issues, [], 'the rows verify (the log reports its checkpoints unverifiable)');
    assert.deepEqual(
      unchecked.expired.map((e) => [e.policy, e.deletion_id]),
      [['deletion_request', 'forged-1']],
    );
    assert.ok(unchecked.notes.some((n) => /Deletion requests were honoured without checking a signature/.test(n)));
  });
});
