/**
 * The mutation detectors over the scenario corpus, written as spans and stored through the real ingest path
 * (OTLP protobuf -> decode -> flatten -> ClickHouse), judged by the real SQL.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { runDetector } from '../../../alerts/detectors/load.ts';
import { DangerousEmptyReadsRow } from '../../../alerts/detectors/rows.ts';
import { detect } from '../../../alerts/findings/detect.ts';
import type { Finding } from '../../../alerts/findings/finding.ts';
import { setOwner } from '../../../alerts/owners/store.ts';
import { canonicalDetectorRows } from '../../../testkit/detector-rows.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { type BuiltSessions, buildSessionSpans, spanOf } from '../../../testkit/session-spans.ts';
import { EXPECTED, OWNERS, scenarioSessions } from './scenarios.ts';

let db: TestDatabase;
let built: BuiltSessions;
let findings: Finding[];
const now = new Date();
const tenant = uniqueName('acme');
const otherTenant = uniqueName('globex');

before(async () => {
  db = await freshDatabase('tt_alerts_detectors');
  built = buildSessionSpans(scenarioSessions(now));
  await ingestSpans(db, built.spans, tenant);
  // The same sessions under another tenant, with its own spans: must never leak into `tenant`'s findings.
  await ingestSpans(db, buildSessionSpans(scenarioSessions(now)).spans, otherTenant);
  const meta = { by: 'test', reason: 'scenario owners', at: new Date(now.getTime() - 86_400_000) };
  await setOwner(
    db.ch,
    db.database,
    { tenant: '', kind: 'tool', subject: 'delete_service_accounts', source: '' },
    OWNERS.iam,
    meta,
  );
  await setOwner(db.ch, db.database, { tenant, kind: 'agent', subject: 'auditor', source: '' }, OWNERS.audit, meta);
  await setOwner(db.ch, db.database, { tenant, kind: 'tool', subject: 'rotate_keys', source: '' }, OWNERS.keys, meta);
  const config = { ...defaultAlertsConfig(), tenant };
  ({ findings } = await detect({
    ch: db.ch,
    database: db.database,
    config,
    now,
    since: new Date(now.getTime() - 86_400_000),
  }));
});
after(async () => {
  await db?.drop();
});

const ofSession = (session: string) => findings.filter((f) => f.session === session);

describe('mutation detectors over the scenario corpus', () => {
  it('finds exactly the expected findings, with their severity, reads, reasons and owner', () => {
    const mutationFindings = findings.filter((f) => f.mutation_span_id !== null);
    const actual = mutationFindings
      .map((f) => ({
        session: f.session,
        kind: f.kind,
        severity: f.severity,
        score: f.score,
        read_span_ids: [...f.read_span_ids].sort(),
        owner: f.owner,
        reasons: [...f.reasons].sort(),
        tenant: f.tenant,
      }))
      .sort((a, b) => String(a.session).localeCompare(String(b.session)));
    const expected = EXPECTED.map((e) => ({
      session: e.session,
      kind: e.kind,
      severity: e.severity,
      score: e.score,
      read_span_ids: e.reads.map((label) => spanOf(built, e.session, label).spanId).sort(),
      owner: e.owner,
      reasons: [...e.reasons].sort(),
      tenant,
    })).sort((a, b) => a.session.localeCompare(b.session));
    assert.deepEqual(actual, expected);
  });

  it('ranks an absence-based deletion after an incomplete empty read as critical and cites the mutation span', () => {
    const [f] = ofSession('absence-after-incomplete-empty');
    assert.ok(f);
    assert.equal(f.severity, 'critical');
    assert.equal(f.incomplete_empty, true);
    assert.equal(f.mutation_span_id, spanOf(built, 'absence-after-incomplete-empty', 'delete').spanId);
    assert.equal(f.trace_id, spanOf(built, 'absence-after-incomplete-empty', 'delete').traceId);
    assert.equal(f.team, OWNERS.iam.team);
    assert.match(f.reconstruct?.command ?? '', new RegExp(`--finding ${f.fingerprint}`));
  });

  it('does not flag mutations that followed complete reads', () => {
    assert.deepEqual(ofSession('complete-then-mutate'), []);
  });

  it('counts a read that said nothing about completeness as incomplete', () => {
    const [f] = ofSession('unknown-completeness');
    assert.deepEqual(f?.reasons, ['COMPLETENESS_UNKNOWN']);
  });

  it('ignores incomplete reads of a different resource', () => {
    assert.deepEqual(ofSession('incomplete-other-resource'), []);
  });

  it('does not flag an incomplete read superseded by a complete read the mutation names as evidence', () => {
    assert.deepEqual(ofSession('superseded-by-complete-evidence'), []);
  });

  it('flags a read named as evidence even when its resource label differs', () => {
    assert.equal(ofSession('named-incomplete-evidence')[0]?.kind, 'mutation_after_incomplete_read');
  });

  it('reports an absence mutation with no read behind it once, as absence_mutation_without_complete_evidence', () => {
    const fs = ofSession('absence-without-evidence');
    assert.equal(fs.length, 1);
    assert.equal(fs[0]?.kind, 'absence_mutation_without_complete_evidence');
    assert.equal(fs[0]?.owner, null);
  });

  it('ignores incomplete reads older than the window or made after the mutation', () => {
    assert.deepEqual(ofSession('read-outside-window'), []);
    assert.deepEqual(ofSession('incomplete-read-after-mutation'), []);
  });

  it('gives a finding the same fingerprint on every run, and different fingerprints in different tenants', async () => {
    const config = { ...defaultAlertsConfig(), tenant };
    const again = await detect({
      ch: db.ch,
      database: db.database,
      config,
      now,
      since: new Date(now.getTime() - 86_400_000),
    });
    assert.deepEqual(again.findings.map((f) => f.fingerprint).sort(), findings.map((f) => f.fingerprint).sort());
    const other = await detect({
      ch: db.ch,
      database: db.database,
      config: { ...config, tenant: otherTenant },
      now,
      since: new Date(now.getTime() - 86_400_000),
    });
    assert.equal(other.findings.length, findings.length);
    for (const f of other.findings) assert.ok(!findings.some((g) => g.fingerprint === f.fingerprint));
  });
});

describe('dangerous_empty_reads', () => {
  it('reports incomplete empty reads per tool and reason with their rate among the tool reads', async () => {
    const rows = (
      await runDetector(db.ch, 'dangerous_empty_reads', {
        database: db.database,
        tenant,
        since: new Date(now.getTime() - 3 * 3_600_000),
        until: now,
        min_count: 0,
        min_rate: 0,
      })
    ).map((r) => DangerousEmptyReadsRow.parse(r));
    const get = (tool: string, reason: string) => rows.find((r) => r.tool_name === tool && r.reason === reason);
    // list_service_accounts: 7 reads, 3 incomplete and empty (MORE_PAGES+CLIENT_LIMIT, SOURCE_UNAVAILABLE, RATE_LIMITED)
    assert.deepEqual(
      {
        n: get('list_service_accounts', 'MORE_PAGES_AVAILABLE')?.incomplete_empty_reads,
        total: get('list_service_accounts', 'MORE_PAGES_AVAILABLE')?.total_reads,
      },
      { n: 1, total: 7 },
    );
    assert.equal(get('list_service_accounts', 'CLIENT_LIMIT_REACHED')?.incomplete_empty_reads, 1);
    assert.equal(get('list_api_keys', 'RESULT_LIMIT_REACHED')?.rate, 1);
    // An incomplete read with items is not an empty one; a read with unknown completeness and 5 items neither.
    assert.equal(get('list_signing_keys', 'TIME_BUDGET_EXCEEDED'), undefined);
    assert.equal(get('search_audit_log', 'COMPLETENESS_UNKNOWN'), undefined);
    assert.ok(rows.every((r) => r.tenant === tenant));
  });

  it('applies the count and rate thresholds', async () => {
    const rows = await runDetector(db.ch, 'dangerous_empty_reads', {
      database: db.database,
      tenant,
      since: new Date(now.getTime() - 3 * 3_600_000),
      until: now,
      min_count: 1,
      min_rate: 0.5,
    });
    assert.deepEqual(
      rows.map((r) => DangerousEmptyReadsRow.parse(r)).map((r) => `${r.tool_name}/${r.reason}`),
      ['list_api_keys/RESULT_LIMIT_REACHED'],
    );
  });
});

describe('incremental detectors (conformance with the range detectors)', () => {
  it('the incremental detectors find the same rows as the range ones when every session has arrived', async () => {
    const day = 86_400_000;
    for (const [range, incremental] of [
      ['mutation_after_incomplete_read', 'incremental_mutation_after_incomplete_read'],
      ['absence_mutation_without_complete_evidence', 'incremental_absence_mutation_without_complete_evidence'],
    ] as const) {
      const window_seconds = defaultAlertsConfig().mutationWindowSeconds;
      const [byRange, byArrival] = await Promise.all([
        runDetector(db.ch, range, {
          database: db.database,
          tenant,
          since: new Date(now.getTime() - day),
          until: now,
          window_seconds,
        }),
        runDetector(db.ch, incremental, {
          database: db.database,
          tenant,
          arrived_since: new Date(now.getTime() - day),
          arrived_until: new Date(Date.now() + 60_000),
          window_seconds,
        }),
      ]);
      assert.ok(byRange.length > 0, `${range} finds something in the corpus`);
      assert.deepEqual(canonicalDetectorRows(byArrival), canonicalDetectorRows(byRange), incremental);
    }
  });
});
