/**
 * 120 days of synthetic warning history (as spans with `tooltrail.warning` events, through the real ingest path):
 * the lifecycle escalates, reminds and proposes retirement for exactly the expected warnings, records every state
 * change with who, when and why, pages through the real Alertmanager, and `tooltrail warnings` drives it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { DAY_MS } from '../../../alerts/clock.ts';
import { type AlertsConfig, defaultAlertsConfig, EVALUATOR_ACTOR } from '../../../alerts/config.ts';
import { Evaluator } from '../../../alerts/evaluator/evaluator.ts';
import { detect, reviewWarnings } from '../../../alerts/findings/detect.ts';
import { listRecords } from '../../../alerts/findings/store.ts';
import { setOwner } from '../../../alerts/owners/store.ts';
import type { WarningListRow } from '../../../alerts/warnings/actions.ts';
import { recordStateChanges, stateHistory } from '../../../alerts/warnings/store.ts';
import type { WarningCode } from '../../../contract/index.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import {
  freshDatabase,
  requireAlertmanager,
  services,
  type TestDatabase,
  uniqueName,
} from '../../../testkit/services.ts';
import { buildSessionSpans, type ReadStep, type SessionScript } from '../../../testkit/session-spans.ts';
import { startWebhookSink, type WebhookSink } from '../../../testkit/webhook-sink.ts';
import { runAlertsCli } from './cli-harness.ts';

const now = new Date();
const daysAgo = (d: number) => new Date(now.getTime() - d * DAY_MS);
const tenant = uniqueName('initech');
let db: TestDatabase;
let sink: WebhookSink;
let config: AlertsConfig;

interface HistoryWarning {
  id: string;
  code: WarningCode;
  source: string;
  tool: string;
  /** Days ago (0..119) it was seen. */
  seen: (day: number) => boolean;
}

const range = (from: number, to: number) => (d: number) => d >= from && d <= to;
const HISTORY: HistoryWarning[] = [
  // A: every day for 120 days, nobody owns it -> escalate.
  { id: 'A', code: 'STALE_INDEX', source: 'accounts-index', tool: 'list_accounts', seen: () => true },
  // B: every day, owner assigned 60 days ago (deadline 30 days ago) -> remind.
  { id: 'B', code: 'PARTIAL_FIELD_SET', source: 'users-api', tool: 'list_users', seen: () => true },
  // C: seen 119..50 days ago, silent for 50 days (> 30) -> propose retirement (to its owner).
  { id: 'C', code: 'DEPRECATED_FIELD', source: 'billing.legacy_id', tool: 'list_invoices', seen: range(50, 119) },
  // D: every third day: not most days -> nothing.
  { id: 'D', code: 'SORT_OVERRIDDEN', source: 'search-api', tool: 'search', seen: (d) => d % 3 === 0 },
  // E: every day, owner assigned 10 days ago (deadline ahead) -> nothing.
  { id: 'E', code: 'VALUE_NORMALIZED', source: 'currency-field', tool: 'list_invoices', seen: () => true },
  // F: every day, owned source-wide for 100 days but acknowledged 5 days ago, due in 20 days -> nothing.
  { id: 'F', code: 'DEFAULT_SCOPE_APPLIED', source: 'tenant-scope', tool: 'list_projects', seen: () => true },
  // G: seen 118..95 days ago, retired 90 days ago -> stays retired, nothing.
  { id: 'G', code: 'STALE_INDEX', source: 'old-index', tool: 'list_accounts', seen: range(95, 118) },
  // H: seen 100..41 days ago, retired 40 days ago, seen again in the last 10 days -> active again, then escalated.
  {
    id: 'H',
    code: 'STALE_INDEX',
    source: 'reindexed-index',
    tool: 'list_accounts',
    seen: (d) => (d >= 41 && d <= 100) || d <= 9,
  },
];
const byId = (id: string) => HISTORY.find((w) => w.id === id)!;
const keyOf = (w: HistoryWarning) => `${w.code}/${w.source}`;

function historySessions(): SessionScript[] {
  const sessions: SessionScript[] = [];
  for (let d = 0; d < 120; d++) {
    const steps: ReadStep[] = HISTORY.filter((w) => w.seen(d)).map((w, i) => ({
      effect: 'read',
      tool: w.tool,
      resource: w.tool.replace(/^list_/, ''),
      complete: true,
      items: 10,
      warnings: [{ code: w.code, source: w.source }],
      at: i * 10,
    }));
    sessions.push({
      session: `day-${d}`,
      agent: 'reporter',
      start: new Date(daysAgo(d).getTime() - 2 * 3_600_000),
      steps,
    });
  }
  return sessions;
}

before(async () => {
  await requireAlertmanager();
  sink = await startWebhookSink();
  db = await freshDatabase('tt_alerts_warnings');
  config = { ...defaultAlertsConfig(services.alertmanager.url), tenant, alertTtlSeconds: 120 };
  const sessions = historySessions();
  // One insert may touch at most 100 daily partitions: ingest the 120 days a month at a time.
  for (let i = 0; i < sessions.length; i += 30) {
    await ingestSpans(db, buildSessionSpans(sessions.slice(i, i + 30)).spans, tenant);
  }
  const who = { by: 'alice', reason: 'history fixture' };
  const B = byId('B');
  const C = byId('C');
  const E = byId('E');
  const F = byId('F');
  await setOwner(
    db.ch,
    db.database,
    { tenant, kind: 'warning', subject: B.code, source: B.source },
    { owner: 'users-api-team', team: 'platform' },
    { ...who, at: daysAgo(60) },
  );
  await setOwner(
    db.ch,
    db.database,
    { tenant: '', kind: 'warning', subject: C.code, source: C.source },
    { owner: 'billing-team', team: 'finance' },
    { ...who, at: daysAgo(100) },
  );
  await setOwner(
    db.ch,
    db.database,
    { tenant, kind: 'warning', subject: E.code, source: E.source },
    { owner: 'fx-team', team: 'finance' },
    { ...who, at: daysAgo(10) },
  );
  await setOwner(
    db.ch,
    db.database,
    { tenant, kind: 'warning', subject: '*', source: F.source },
    { owner: 'scope-team', team: 'platform' },
    { ...who, at: daysAgo(100) },
  );
  const G = byId('G');
  const H = byId('H');
  await recordStateChanges(db.ch, db.database, [
    {
      tenant,
      code: F.code,
      source: F.source,
      from: 'active',
      to: 'acknowledged',
      due_at: new Date(now.getTime() + 20 * DAY_MS),
      ...who,
      at: daysAgo(5),
    },
    { tenant, code: G.code, source: G.source, from: 'active', to: 'retired', ...who, at: daysAgo(90) },
    { tenant, code: H.code, source: H.source, from: 'active', to: 'retired', ...who, at: daysAgo(40) },
  ]);
});
after(async () => {
  await sink?.close();
  await db?.drop();
});

describe('warning lifecycle over 120 days of history', () => {
  it('escalates, reminds and proposes retirement for exactly the expected warnings', async () => {
    const { findings } = await detect({ ch: db.ch, database: db.database, config, now, since: daysAgo(1) });
    const got = findings.map((f) => `${f.kind} ${f.warning?.code}/${f.warning?.source} owner=${f.owner}`).sort();
    assert.deepEqual(got, [
      `persistent_unowned_warning ${keyOf(byId('A'))} owner=null`,
      `persistent_unowned_warning ${keyOf(byId('H'))} owner=null`,
      `warning_past_deadline ${keyOf(byId('B'))} owner=users-api-team`,
      `warning_retirement_proposed ${keyOf(byId('C'))} owner=billing-team`,
    ]);
    const a = findings.find((f) => f.warning?.source === 'accounts-index');
    assert.ok((a?.warning?.days_seen ?? 0) >= 90, `A seen on ${a?.warning?.days_seen} days`);
    const b = findings.find((f) => f.kind === 'warning_past_deadline');
    assert.equal(b?.warning?.deadline, new Date(daysAgo(60).getTime() + 30 * DAY_MS).toISOString());
  });

  it('applies the transitions, records who, when and why, and pages escalation and owners', async () => {
    const evaluator = new Evaluator({ ch: db.ch, database: db.database, config, clock: () => now });
    const report = await evaluator.runOnce();
    assert.equal(report.sendError, null);

    const history = await stateHistory(db.ch, db.database);
    const byEvaluator = history
      .filter((h) => h.changed_by === EVALUATOR_ACTOR)
      .map((h) => `${h.code}/${h.source} ${h.from_state}->${h.state}`);
    assert.deepEqual(byEvaluator.sort(), [
      `${keyOf(byId('A'))} active->escalated`,
      `${keyOf(byId('H'))} active->escalated`,
      `${keyOf(byId('H'))} retired->active`,
    ]);
    for (const h of history.filter((x) => x.changed_by === EVALUATOR_ACTOR)) {
      assert.equal(h.changed_at, now.toISOString());
      assert.match(h.reason, /seen on \d+ of the last 90 days with no owner|seen again at .* after its retirement/);
    }

    await sink.waitFor(
      () => sink.forTenant(tenant).length >= 3,
      'three lifecycle pages (escalation, reminder, retirement proposal)',
    );
    // And nothing more, once Alertmanager has paged all it held.
    await sink.drained();
    const pages = sink
      .forTenant(tenant)
      .map((n) => ({
        path: n.path,
        alertname: n.body.groupLabels.alertname,
        owner: n.body.groupLabels.owner ?? null,
        warnings: n.body.alerts.map((a) => `${a.labels.warning_code}/${a.labels.warning_source}`).sort(),
      }))
      .sort((x, y) => `${x.alertname}`.localeCompare(`${y.alertname}`));
    assert.deepEqual(pages, [
      {
        path: '/escalation',
        alertname: 'PersistentUnownedWarning',
        owner: null,
        warnings: [keyOf(byId('A')), keyOf(byId('H'))].sort(),
      },
      { path: '/owner', alertname: 'WarningPastDeadline', owner: 'users-api-team', warnings: [keyOf(byId('B'))] },
      { path: '/owner', alertname: 'WarningRetirementProposed', owner: 'billing-team', warnings: [keyOf(byId('C'))] },
    ]);

    // A second run changes no state: transitions are not repeated.
    await evaluator.runOnce();
    assert.equal((await stateHistory(db.ch, db.database)).length, history.length);
  });

  it('retires stale warnings automatically when configured, and resolves the proposal', async () => {
    const auto = { ...config, warnings: { ...config.warnings, autoRetire: true } };
    const later = new Date(now.getTime() + 60_000);
    await new Evaluator({ ch: db.ch, database: db.database, config: auto, clock: () => later }).runOnce();
    const C = byId('C');
    const changes = await stateHistory(db.ch, db.database, { tenant, code: C.code, source: C.source });
    assert.deepEqual(
      changes.map((c) => `${c.from_state}->${c.state} by ${c.changed_by}`),
      [`active->retired by ${EVALUATOR_ACTOR}`],
    );
    assert.match(changes[0]?.reason ?? '', /not seen since .* retired automatically/);
    const proposal = (await listRecords(db.ch, db.database, { tenant })).find(
      (r) => r.finding.kind === 'warning_retirement_proposed',
    );
    assert.equal(proposal?.resolution, 'no_longer_matches');
  });

  it('lists warnings with state, owner, days seen and next action (tooltrail warnings --json)', async () => {
    const { out } = await runAlertsCli(['warnings', '--json', '--tenant', tenant], {
      TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
    });
    const rows = JSON.parse(out) as WarningListRow[];
    const row = (w: HistoryWarning) => rows.find((r) => r.code === w.code && r.source === w.source);
    assert.equal(rows.length, HISTORY.length);
    assert.deepEqual(
      { state: row(byId('A'))?.state, owner: row(byId('A'))?.owner, next: row(byId('A'))?.next_action },
      { state: 'escalated', owner: null, next: 'escalate' },
    );
    assert.deepEqual(
      { state: row(byId('F'))?.state, owner: row(byId('F'))?.owner, next: row(byId('F'))?.next_action },
      { state: 'acknowledged', owner: 'scope-team', next: 'none' },
    );
    assert.equal(row(byId('C'))?.state, 'retired');
    assert.ok((row(byId('C'))?.age_days ?? 0) >= 49);
    assert.equal(row(byId('D'))?.persistent, false);
  });

  it('ack with an owner stops the escalation; retire records who and why (tooltrail warnings ack|retire)', async () => {
    const env = { TOOLTRAIL_CLICKHOUSE_DATABASE: db.database };
    const A = byId('A');
    const D = byId('D');
    await runAlertsCli(
      [
        'warnings',
        'ack',
        A.code,
        A.source,
        '--owner',
        'search-infra',
        '--team',
        'platform',
        '--due',
        '14d',
        '--by',
        'bob',
        '--reason',
        'reindex scheduled',
      ],
      env,
    );
    await runAlertsCli(
      ['warnings', 'retire', D.code, D.source, '--by', 'carol', '--reason', 'sorting is intended'],
      env,
    );

    const reviews = await reviewWarnings(db.ch, db.database, config, now);
    const a = reviews.find((r) => r.stats.source === A.source);
    assert.equal(a?.stats.state, 'acknowledged');
    assert.equal(a?.owner?.owner, 'search-infra');
    assert.equal(a?.decision.action, 'none');
    const d = await stateHistory(db.ch, db.database, { tenant, code: D.code, source: D.source });
    assert.deepEqual(
      d.map((c) => ({ to: c.state, by: c.changed_by, reason: c.reason })),
      [{ to: 'retired', by: 'carol', reason: 'sorting is intended' }],
    );
    await assert.rejects(
      runAlertsCli(['warnings', 'ack', byId('H').code, byId('H').source, '--reason', 'x'], env),
      /has no owner: pass --owner/,
    );
  });
});
