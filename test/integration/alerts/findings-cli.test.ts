/**
 * `tooltrail findings [--since] [--json]` over the scenario corpus plus a persistent warning, validated against
 * the published JSON Schema (alerts/findings/finding.schema.json) with a real JSON Schema validator.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { DAY_MS } from '../../../alerts/clock.ts';
import { findingsJsonSchema, SCHEMA_PATH } from '../../../alerts/findings/export-schema.ts';
import { setOwner } from '../../../alerts/owners/store.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { buildSessionSpans } from '../../../testkit/session-spans.ts';
import { runAlertsCli } from './cli-harness.ts';
import { dailyWarningSessions, EXPECTED, OWNERS, scenarioSessions } from './scenarios.ts';

const now = new Date();
const tenant = uniqueName('acme');
let db: TestDatabase;
let env: Record<string, string>;
const schema = JSON.parse(readFileSync(SCHEMA_PATH, 'utf8')) as Record<string, unknown>;
// Formats are not asserted (no ajv-formats here); the schema's own patterns check the date-times.
const validate = new Ajv2020({ strict: true, allErrors: true, validateFormats: false }).compile(schema);

before(async () => {
  db = await freshDatabase('tt_alerts_findings_cli');
  await ingestSpans(db, buildSessionSpans([...scenarioSessions(now), ...dailyWarningSessions(now, 50)]).spans, tenant);
  const meta = { by: 'test', reason: 'scenario owners', at: new Date(now.getTime() - DAY_MS) };
  await setOwner(
    db.ch,
    db.database,
    { tenant, kind: 'tool', subject: 'delete_service_accounts', source: '' },
    OWNERS.iam,
    meta,
  );
  env = {
    TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
    // Low thresholds so the corpus also yields dangerous_empty_reads findings.
    TOOLTRAIL_ALERTS_EMPTY_READS_MIN_COUNT: '1',
    TOOLTRAIL_ALERTS_EMPTY_READS_MIN_RATE: '0.1',
    TOOLTRAIL_RECONSTRUCT_URL: 'http://grafana.local:3000/reconstruct/session/{session}',
  };
});
after(async () => {
  await db?.drop();
});

describe('tooltrail findings', () => {
  it('prints JSON that validates against the published schema, with every kind the corpus has', async () => {
    const { out } = await runAlertsCli(['findings', '--json', '--tenant', tenant], env, () => now);
    const findings = JSON.parse(out) as Array<Record<string, unknown>>;
    assert.equal(validate(findings), true, JSON.stringify(validate.errors, null, 2));
    const kinds = new Set(findings.map((f) => f.kind));
    assert.deepEqual([...kinds].sort(), [
      'absence_mutation_without_complete_evidence',
      'dangerous_empty_reads',
      'mutation_after_incomplete_read',
      'persistent_unowned_warning',
    ]);
    assert.equal(findings.filter((f) => f.mutation_span_id !== null).length, EXPECTED.length);
    const critical = findings.find((f) => f.session === 'absence-after-incomplete-empty');
    assert.equal(critical?.owner, OWNERS.iam.owner);
    assert.deepEqual(critical?.reconstruct, {
      command: `tooltrail reconstruct --finding ${critical?.fingerprint}  (or: tooltrail reconstruct --session absence-after-incomplete-empty)`,
      url: 'http://grafana.local:3000/reconstruct/session/absence-after-incomplete-empty',
    });
  });

  it('the published schema rejects a finding without its fingerprint or with an unknown kind', () => {
    const good = {
      kind: 'mutation_after_incomplete_read',
      fingerprint: '0123456789abcdef',
      severity: 'critical',
      score: 9,
      tenant: 't',
      session: 's',
      trace_id: 'tr',
      mutation_span_id: 'sp',
      read_span_ids: ['r'],
      read_trace_ids: ['tr'],
      read_tools: ['list'],
      reasons: ['MORE_PAGES_AVAILABLE'],
      missing_evidence: [],
      owner: null,
      team: null,
      tool: 'delete',
      agent: null,
      scope_resource: 'x',
      mutation_basis: 'absence',
      target_count: 3,
      guard_decision: null,
      incomplete_empty: true,
      event_time: '2026-01-02T03:04:05.123Z',
      summary: 's',
      warning: null,
      rate: null,
      reconstruct: null,
    };
    assert.equal(validate([good]), true, JSON.stringify(validate.errors));
    const { fingerprint: _fp, ...noFingerprint } = good;
    assert.equal(validate([noFingerprint]), false);
    assert.equal(validate([{ ...good, kind: 'something_else' }]), false);
    assert.equal(validate([{ ...good, event_time: 'yesterday' }]), false);
  });

  it('is the schema generated from the zod schema (regenerate: node --import tsx alerts/findings/export-schema.ts)', () => {
    assert.deepEqual(schema, findingsJsonSchema());
  });

  it('--since limits the mutations judged to that last period', async () => {
    const { out } = await runAlertsCli(['findings', '--json', '--tenant', tenant, '--since', '22m'], env, () => now);
    const sessions = (JSON.parse(out) as Array<{ session: string | null }>)
      .map((f) => f.session)
      .filter((s) => s !== null);
    assert.deepEqual(sessions, ['named-incomplete-evidence']);
  });

  it('says on stderr that a tenant holds no tool calls at all, instead of a bare "no findings"', async () => {
    const empty = await runAlertsCli(['findings', '--tenant', `${tenant}-typo`], env, () => now);
    assert.match(empty.out, /no findings/);
    assert.match(empty.err, new RegExp(`tenant ${tenant}-typo has no tool calls stored at all`));
    const full = await runAlertsCli(['findings', '--tenant', tenant], env, () => now);
    assert.doesNotMatch(full.err, /no tool calls stored/);
  });

  it('prints one readable entry per finding without --json', async () => {
    const { out } = await runAlertsCli(['findings', '--tenant', tenant], env, () => now);
    assert.match(out, /critical\s+mutation_after_incomplete_read\s+[0-9a-f]{16}\s+tenant=\S+ owner=iam-oncall/);
    assert.match(out, /absence_mutation_without_complete_evidence .* owner=\(none: escalation\)/);
    assert.match(out, /tooltrail reconstruct --finding [0-9a-f]{16}/);
  });
});
