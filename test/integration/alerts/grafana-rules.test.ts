/**
 * The Grafana alert-rule provisioning: up to date with the detector SQL, and every rule's query (macros expanded
 * as the ClickHouse datasource plugin expands them) runs on the real schema and finds what the evaluator finds.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { parse } from 'yaml';
import { DAY_MS } from '../../../alerts/clock.ts';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { detect } from '../../../alerts/findings/detect.ts';
import type { Finding, FindingKind } from '../../../alerts/findings/finding.ts';
import { grafanaRulesYaml, RULES_PATH, ruleSpecs } from '../../../alerts/grafana/rules.ts';
import { setOwner } from '../../../alerts/owners/store.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { buildSessionSpans, type SessionScript } from '../../../testkit/session-spans.ts';
import { OWNERS, scenarioSessions } from './scenarios.ts';

const now = new Date();
const tenant = uniqueName('acme');
let db: TestDatabase;
let findings: Finding[];

function warningHistory(): SessionScript[] {
  return Array.from({ length: 60 }, (_, d) => ({
    session: `history-${d}`,
    agent: 'reporter',
    start: new Date(now.getTime() - d * DAY_MS - 3 * 3_600_000),
    steps: [
      { code: 'STALE_INDEX' as const, source: 'idx-1', seen: true },
      { code: 'PARTIAL_FIELD_SET' as const, source: 'api-2', seen: true },
      { code: 'DEPRECATED_FIELD' as const, source: 'field-3', seen: d >= 40 },
    ]
      .filter((w) => w.seen)
      .map((w, i) => ({
        effect: 'read' as const,
        tool: 'list_things',
        resource: 'things',
        complete: true,
        items: 3,
        warnings: [{ code: w.code, source: w.source }],
        at: i,
      })),
  }));
}

/** What the ClickHouse plugin substitutes for its time macros (whole seconds). */
function expandMacros(sql: string, from: Date, to: Date): string {
  const secs = (t: Date) => Math.floor(t.getTime() / 1000);
  return sql.replaceAll('$__fromTime', `toDateTime(${secs(from)})`).replaceAll('$__toTime', `toDateTime(${secs(to)})`);
}

before(async () => {
  db = await freshDatabase('tt_alerts_grafana');
  await ingestSpans(db, buildSessionSpans([...scenarioSessions(now), ...warningHistory()]).spans, tenant);
  const meta = { by: 'test', reason: 'fixture', at: new Date(now.getTime() - 40 * DAY_MS) };
  await setOwner(
    db.ch,
    db.database,
    { tenant: '', kind: 'tool', subject: 'delete_service_accounts', source: '' },
    OWNERS.iam,
    meta,
  );
  await setOwner(db.ch, db.database, { tenant, kind: 'agent', subject: 'auditor', source: '' }, OWNERS.audit, meta);
  await setOwner(
    db.ch,
    db.database,
    { tenant, kind: 'warning', subject: 'PARTIAL_FIELD_SET', source: 'api-2' },
    { owner: 'api-team', team: 'platform' },
    meta,
  );
  const config = {
    ...defaultAlertsConfig(),
    tenant,
    dangerousEmptyReads: { ...defaultAlertsConfig().dangerousEmptyReads, minCount: 1, minRate: 0.1 },
  };
  ({ findings } = await detect({
    ch: db.ch,
    database: db.database,
    config,
    now,
    since: new Date(now.getTime() - DAY_MS),
  }));
});
after(async () => {
  await db?.drop();
});

describe('Grafana alert rule provisioning', () => {
  it('is the file generated from the detector SQL (regenerate: node --import tsx alerts/grafana/rules.ts)', () => {
    assert.equal(readFileSync(RULES_PATH, 'utf8'), grafanaRulesYaml());
    const doc = parse(readFileSync(RULES_PATH, 'utf8')) as {
      apiVersion: number;
      groups: Array<{ rules: Array<{ uid: string; condition: string; data: unknown[] }> }>;
    };
    assert.equal(doc.apiVersion, 1);
    assert.equal(doc.groups[0]?.rules.length, 6);
    for (const r of doc.groups[0]?.rules ?? []) assert.equal(r.data.length, 2, r.uid);
  });

  it('every rule query runs on the real schema and finds what the evaluator finds', async () => {
    const c = {
      ...defaultAlertsConfig(),
      dangerousEmptyReads: { ...defaultAlertsConfig().dangerousEmptyReads, minCount: 1, minRate: 0.1 },
    };
    const kindOf: Record<string, FindingKind> = {
      'tooltrail-mutation-after-incomplete-read': 'mutation_after_incomplete_read',
      'tooltrail-absence-mutation-without-complete-evidence': 'absence_mutation_without_complete_evidence',
      'tooltrail-dangerous-empty-reads': 'dangerous_empty_reads',
      'tooltrail-persistent-unowned-warning': 'persistent_unowned_warning',
      'tooltrail-warning-past-deadline': 'warning_past_deadline',
      'tooltrail-warning-retirement-proposed': 'warning_retirement_proposed',
    };
    for (const rule of ruleSpecs(db.database, c)) {
      const sql = expandMacros(rule.sql, new Date(now.getTime() - rule.lookbackSeconds * 1000), now);
      const rs = await db.ch.query({
        query: `SELECT * FROM (${sql}) WHERE tenant = {tenant:String}`,
        query_params: { tenant },
        format: 'JSONEachRow',
      });
      const rows = await rs.json<Record<string, string | number | null>>();
      const kind = kindOf[rule.uid] as FindingKind;
      const expected = findings.filter((f) => f.kind === kind);
      const key = (r: Record<string, unknown>) =>
        kind.startsWith('warning') || kind === 'persistent_unowned_warning'
          ? `${r.warning_code}/${r.warning_source} owner=${r.owner || null}`
          : kind === 'dangerous_empty_reads'
            ? `${r.tool}/${r.reason}`
            : `${r.session} owner=${r.owner || null} ${r.severity}`;
      const expectedKeys = expected.map((f) =>
        f.warning
          ? `${f.warning.code}/${f.warning.source} owner=${f.owner}`
          : f.rate
            ? `${f.tool}/${f.rate.reason}`
            : `${f.session} owner=${f.owner} ${f.severity}`,
      );
      assert.ok(expected.length > 0, `the fixture exercises ${kind}`);
      assert.deepEqual(rows.map(key).sort(), expectedKeys.sort(), rule.uid);
      assert.ok(
        rows.every((r) => typeof r.value === 'number' && r.value > 0),
        `${rule.uid}: every row fires (value > 0)`,
      );
      // Grafana makes one alert instance per row: string columns become its labels, `value` its value.
      for (const r of rows) {
        for (const [column, v] of Object.entries(r)) {
          if (column !== 'value') assert.equal(typeof v, 'string', `${rule.uid}.${column}`);
        }
      }
    }
  });
});
