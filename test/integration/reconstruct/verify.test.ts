import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { createDigestRecorder, type DigestRecorder } from '../../../audit/recorder.ts';
import { type VerifyReport, VerifyReportSchema } from '../../../audit/report.ts';
import { verifyDigests } from '../../../audit/verify.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { logVersion1, recordLegacyDigests } from '../../../testkit/audit-log.ts';
import { serializeSpans, stampTenant } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { runScenario, type Scenario } from './scenario.ts';

const HOUR = 3_600_000;
const KEY = 'k'.repeat(40);

/** The real path (OTLP protobuf -> decode -> tenant stamp -> flatten -> the ingest writer), with digests on. */
async function ingest(db: TestDatabase, spans: ReadableSpan[], tenant: string, digests?: DigestRecorder) {
  const rows = flatten(stampTenant(decodeExportTraceServiceRequest(serializeSpans(spans)), tenant));
  assert.equal(rows.rejected.length, 0);
  const writer = createClickHouseWriter(db.ch, { database: db.database, ...(digests ? { batchStored: digests } : {}) });
  await writer.writeRows(rows, { dedupToken: uniqueName('batch') });
  return rows;
}

function recorder(db: TestDatabase, s: Scenario, lateByMs = 5 * 60_000) {
  // The clock sits `lateByMs` after the start of the scenario's hour.
  const hourStart = Math.floor(s.startMs / HOUR) * HOUR;
  return createDigestRecorder(db.ch, { database: db.database, chain: 'writer-a', now: () => hourStart + lateByMs });
}

/** Rows stored with digest records as the writer recorded them before the Merkle log (the chain verify still walks). */
async function legacy(db: TestDatabase, spans: ReadableSpan[], tenant: string, nowMs: number, key?: string) {
  const rows = await ingest(db, spans, tenant);
  await recordLegacyDigests(db, rows, {
    chain: 'writer-a',
    batchId: uniqueName('batch'),
    nowMs,
    ...(key ? { key } : {}),
  });
}

async function verify(db: TestDatabase, tenant: string, s: Scenario, key?: string): Promise<VerifyReport> {
  const r = await verifyDigests(db.ch, db.schema, {
    tenant,
    from: new Date(s.startMs - HOUR),
    to: new Date(s.startMs + 2 * HOUR),
    ...(key ? { key } : {}),
  });
  VerifyReportSchema.parse(r);
  return r;
}

const kinds = (r: VerifyReport) => r.issues.map((i) => `${i.kind}:${i.table ?? ''}:${i.row_id ?? ''}`).sort();

describe('tamper evidence: rows recorded by the writer (the log, or digest records before it), checked by verify', () => {
  let db: TestDatabase;
  before(async () => {
    db = await freshDatabase('tt_verify');
  });
  after(async () => {
    await db?.drop();
  });

  it('verifies an untouched range', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    const rows = await ingest(db, s.spans, tenant, recorder(db, s));
    const r = await verify(db, tenant, s);
    assert.deepEqual(r.issues, []);
    assert.equal(r.ok, true);
    // 5 tool calls + 1 root span + the warning group of one call
    assert.equal(r.checked.rows, rows.toolCalls.length + rows.spans.length + 1);
    assert.equal(r.checked.digest_records, 1, 'one batch logged in that hour');
    assert.equal(r.checked.rows_hashed_here, 0, 'every row matched the hash ClickHouse computed');
    assert.deepEqual(r.backfill, []);
    assert.deepEqual(r.chains, [], 'the log keeps no digest chain: its checkpoints are checked by verifyRange');
  });

  it('fails naming a stored row that was altered after the fact', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    await ingest(db, s.spans, tenant, recorder(db, s));
    const victim = s.callSpan[1]!;
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls UPDATE result_complete = true, result_reasons = [] WHERE tenant = {tenant:String} AND span_id = {span:String}`,
      query_params: { tenant, span: victim },
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verify(db, tenant, s);
    assert.equal(r.ok, false);
    assert.deepEqual(kinds(r), [`row_changed:tool_calls:${victim}`]);
    assert.match(r.issues[0]!.statement, /altered after it was stored/);
  });

  it('verifies rows logged in canonical version 1 beside rows the writer logs in version 2 on the same log, and catches a version 1 row altered', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    const before = await ingest(db, s.spans, tenant);
    // The trail an older writer left, then the same log continued by this one.
    await logVersion1(db, before, { log: 'writer-a', batchId: uniqueName('batch'), nowMs: s.startMs });
    const s2 = runScenario(uniqueName('sess'), s.startMs);
    const after = await ingest(db, s2.spans, tenant, recorder(db, s2));
    const r = await verify(db, tenant, s);
    assert.deepEqual(r.issues, []);
    const rows = (x: typeof before) => x.toolCalls.length + x.spans.length + 1;
    assert.equal(r.checked.rows, rows(before) + rows(after));
    assert.equal(r.checked.rows_hashed_here, rows(before), 'the version 1 rows, encoded here');
    const victim = s.callSpan[1]!;
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls UPDATE result_complete = NOT result_complete WHERE tenant = {tenant:String} AND span_id = {span:String}`,
      query_params: { tenant, span: victim },
      clickhouse_settings: { mutations_sync: '2' },
    });
    assert.deepEqual(kinds(await verify(db, tenant, s)), [`row_changed:tool_calls:${victim}`]);
  });

  it('re-hashes a row here when the hash ClickHouse computed does not match, and passes it if its values still do', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    // Version 2 sorts map keys as JavaScript does (UTF-16 units: a surrogate pair, 0xD83D.., before U+E000);
    // ClickHouse's mapSort by UTF-8 bytes puts U+E000 (EE ..) first. The server's hash of this row cannot match.
    provider
      .getTracer('verify-test')
      .startSpan('plan', { startTime: s.startMs + 10_000, attributes: { '\uE000 key': 'a', '\u{1F600} key': 'b' } })
      .end(s.startMs + 11_000);
    const rows = await ingest(db, [...s.spans, ...exporter.getFinishedSpans()], tenant, recorder(db, s));
    const r = await verify(db, tenant, s);
    assert.deepEqual(r.issues, []);
    assert.equal(r.checked.rows, rows.toolCalls.length + rows.spans.length + 1);
    assert.equal(r.checked.rows_hashed_here, 1, 'the span whose keys ClickHouse sorts otherwise');
  });

  it('names entries hashed in a canonical version it does not know, instead of reporting their rows changed or added', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    const rows = await ingest(db, s.spans, tenant, recorder(db, s));
    // As a newer writer would have logged them: the tool_calls entries in a canonical version after this one.
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE canonical_version = 9 WHERE tenant = {tenant:String} AND kind = 'entries' AND row_table = 'tool_calls'`,
      query_params: { tenant },
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verify(db, tenant, s);
    assert.equal(r.ok, false);
    assert.deepEqual(kinds(r), ['canonical_unknown::']);
    assert.match(
      r.issues[0]!.statement,
      new RegExp(
        `hashed ${rows.toolCalls.length} row\\(s\\) in canonical version 9; this tooltrail knows versions 1 and 2`,
      ),
    );
    // The rows of the other tables are still compared.
    assert.equal(r.checked.rows, rows.spans.length + 1);
  });

  it('fails naming a stored row that was deleted, and a row added without a digest', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    await ingest(db, s.spans, tenant, recorder(db, s));
    const victim = s.callSpan[4]!;
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls DELETE WHERE tenant = {tenant:String} AND span_id = {span:String}`,
      query_params: { tenant, span: victim },
      clickhouse_settings: { mutations_sync: '2' },
    });
    // Rows written by a writer that records no digest (e.g. inserted by hand) are "added".
    const intruder = runScenario(uniqueName('sess'), s.startMs);
    await ingest(
      db,
      intruder.spans.filter((x) => x.spanContext().spanId === intruder.callSpan[2]),
      tenant,
    );
    const r = await verify(db, tenant, s);
    assert.equal(r.ok, false);
    assert.deepEqual(
      kinds(r),
      [`row_added:tool_calls:${intruder.callSpan[2]}`, `row_deleted:tool_calls:${victim}`].sort(),
    );
  });

  it('reports a batch that arrived after its hour had closed as explicit backfill, not as a failure', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    const early = await ingest(db, s.spans.slice(0, 3), tenant, recorder(db, s));
    await ingest(db, s.spans.slice(3), tenant, recorder(db, s, 3 * HOUR));
    const r = await verify(db, tenant, s);
    assert.equal(r.ok, true, JSON.stringify(r.issues));
    assert.equal(r.backfill.length, 1);
    const b = r.backfill[0]!;
    // `seq`: where the late batch starts in the log, after every leaf of the first.
    assert.equal(
      b.seq,
      early.toolCalls.length + early.spans.length + new Set(early.warnings.map((w) => w.span_id)).size,
    );
    assert.equal(b.rows, s.spans.length - 3);
    assert.equal(b.late_by_seconds, 2 * 3600);
  });

  it('reports a late batch of the digest chain (rows written before the log) as backfill too', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    const hourStart = Math.floor(s.startMs / HOUR) * HOUR;
    await legacy(db, s.spans.slice(0, 3), tenant, hourStart + 5 * 60_000);
    await legacy(db, s.spans.slice(3), tenant, hourStart + 3 * HOUR);
    const r = await verify(db, tenant, s);
    assert.equal(r.ok, true, JSON.stringify(r.issues));
    assert.deepEqual(
      r.backfill.map((b) => [b.chain, b.seq, b.rows, b.late_by_seconds]),
      [['writer-a', 2, s.spans.length - 3, 2 * 3600]],
    );
  });

  it('detects an edited or deleted digest record through the chain (rows written before the log)', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    for (const part of [s.spans.slice(0, 2), s.spans.slice(2, 4), s.spans.slice(4)]) {
      await legacy(db, part, tenant, Math.floor(s.startMs / HOUR) * HOUR + 5 * 60_000);
    }
    assert.equal((await verify(db, tenant, s)).ok, true);
    // Hide a row from the record of batch 1 AND from the table: the rows agree, the chain does not.
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.row_digests UPDATE row_count = row_count - 1 WHERE tenant = {tenant:String} AND seq = 1`,
      query_params: { tenant },
      clickhouse_settings: { mutations_sync: '2' },
    });
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.row_digests DELETE WHERE tenant = {tenant:String} AND seq = 2`,
      query_params: { tenant },
      clickhouse_settings: { mutations_sync: '2' },
    });
    const r = await verify(db, tenant, s);
    assert.equal(r.ok, false);
    const digestIssues = r.issues.filter((i) => !i.kind.startsWith('row_')).map((i) => `${i.kind}#${i.seq}`);
    assert.deepEqual(digestIssues.sort(), ['digest_altered#1', 'digest_missing#2']);
    // The rows batch 2 recorded are now covered by no digest.
    assert.ok(r.issues.some((i) => i.kind === 'row_added'));
  });

  it('reports rows of hours past the retention as expired by policy, not deleted', async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    await ingest(db, s.spans, tenant, recorder(db, s));
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.tool_calls DELETE WHERE tenant = {tenant:String}`,
      query_params: { tenant },
      clickhouse_settings: { mutations_sync: '2' },
    });
    const later = new Date(s.startMs + (db.schema.retentionDays + 1) * 86_400_000);
    const r = await verifyDigests(db.ch, db.schema, {
      tenant,
      from: new Date(s.startMs - HOUR),
      to: new Date(s.startMs + 2 * HOUR),
      now: () => later,
    });
    assert.equal(r.ok, true, JSON.stringify(r.issues));
    assert.deepEqual(
      r.expired.map((e) => [e.policy, e.rows]),
      [['retention', 5]],
    );
    // Before the retention ends, the same deletion is reported.
    assert.equal((await verify(db, tenant, s)).issues.filter((i) => i.kind === 'row_deleted').length, 5);
  });

  it("checks the digest records' signatures when given the key, and refuses a record signed with another key", async () => {
    const tenant = uniqueName('t');
    const s = runScenario(uniqueName('sess'));
    await legacy(db, s.spans, tenant, Math.floor(s.startMs / HOUR) * HOUR + 5 * 60_000, KEY);
    const good = await verify(db, tenant, s, KEY);
    assert.equal(good.ok, true);
    assert.equal(good.signatures_checked, true);
    const bad = await verify(db, tenant, s, 'x'.repeat(40));
    assert.deepEqual(
      bad.issues.map((i) => i.kind),
      ['signature_invalid'],
    );
  });
});
