/**
 * What a run costs when nothing changed, against the real ClickHouse and the real Alertmanager, with the evaluator's
 * clock injected (set in the past of the real clock, so the endsAt it posts are real instants Alertmanager acts
 * on): a firing finding that did not change is neither re-posted nor re-written by the next run, is re-posted once
 * its last post is older than the refresh interval (before its endsAt, so Alertmanager never resolves it), and
 * late evidence still resolves it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type AlertSink, alertmanagerClient } from '../../../alerts/alertmanager/client.ts';
import type { PostableAlert } from '../../../alerts/alertmanager/payload.ts';
import { type AlertsConfig, defaultAlertsConfig, parseAlertsConfig } from '../../../alerts/config.ts';
import { Evaluator } from '../../../alerts/evaluator/evaluator.ts';
import { type FindingRecord, listRecords } from '../../../alerts/findings/store.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import {
  freshDatabase,
  requireAlertmanager,
  services,
  type TestDatabase,
  uniqueName,
} from '../../../testkit/services.ts';
import { buildSessionSpans, pagedThenCompleteThenMutation, spanOf } from '../../../testkit/session-spans.ts';

const tenant = uniqueName('renew');
const SESSION = uniqueName('renewed');
const REAL_START = Date.now();
/** The evaluator's clock starts this far behind the real one. */
const BEHIND_MS = 100_000;
let db: TestDatabase;
let evaluator: Evaluator;
let clock = new Date(REAL_START - BEHIND_MS);
const posted: PostableAlert[][] = [];

const config: AlertsConfig = parseAlertsConfig({
  ...defaultAlertsConfig(services.alertmanager.url),
  tenant,
  evaluatorName: uniqueName('renew'),
  arrivalSlackSeconds: 0,
  intervalSeconds: 10,
  alertTtlSeconds: 600,
  alertRefreshSeconds: 60,
});

const built = buildSessionSpans([
  {
    session: SESSION,
    agent: 'worker',
    start: new Date(REAL_START - 10 * 60_000),
    steps: pagedThenCompleteThenMutation(),
  },
]);
const spans = (labels: readonly string[]) => {
  const ids = new Set(labels.map((l) => spanOf(built, SESSION, l).spanId));
  return built.spans.filter((s) => ids.has(s.spanContext().spanId));
};

async function theRecord(): Promise<FindingRecord> {
  const span = spanOf(built, SESSION, 'disable').spanId;
  const rec = (await listRecords(db.ch, db.database, { tenant })).find((r) => r.finding.mutation_span_id === span);
  assert.ok(rec, 'the mutation has a finding');
  return rec;
}

/** The alert as Alertmanager holds it (GET /api/v2/alerts, every state). */
async function inAlertmanager(fingerprint: string): Promise<{ endsAt: string; state: string } | undefined> {
  const url = new URL('/api/v2/alerts', services.alertmanager.url);
  url.searchParams.append('filter', `fingerprint="${fingerprint}"`);
  url.searchParams.append('filter', `tenant="${tenant}"`);
  const res = await fetch(url);
  assert.equal(res.status, 200);
  const alerts = (await res.json()) as Array<{ endsAt: string; status: { state: string } }>;
  const a = alerts[0];
  return a && { endsAt: a.endsAt, state: a.status.state };
}

/** One run at the injected time, returning its report and what it posted. */
async function runAt(offsetSeconds: number) {
  clock = new Date(REAL_START - BEHIND_MS + offsetSeconds * 1000);
  const before = posted.length;
  const report = await evaluator.runOnce();
  return { report, alerts: posted.slice(before).flat() };
}

before(async () => {
  await requireAlertmanager();
  db = await freshDatabase('tt_alerts_renew');
  const am = alertmanagerClient(config.alertmanagerUrl, config.alertmanagerTimeoutMs);
  const sink: AlertSink = {
    async post(alerts) {
      posted.push([...alerts]);
      await am.post(alerts);
    },
  };
  evaluator = new Evaluator({
    ch: db.ch,
    database: db.database,
    config,
    sink,
    clock: () => clock,
    logger: { info: () => {}, error: (m, e) => assert.fail(`${m}: ${e}`) },
  });
});
after(async () => {
  await db?.drop();
});

describe('alert renewal', () => {
  it('re-posts an unchanged firing finding only when its last post is older than the refresh interval, before Alertmanager would resolve it; late evidence still resolves it', async () => {
    await ingestSpans(db, spans(['page1', 'disable']), tenant);
    const first = await runAt(0);
    assert.equal(first.report.opened, 1);
    const opened = await theRecord();
    const fp = opened.finding.fingerprint;
    assert.deepEqual(
      first.alerts.map((a) => a.labels.fingerprint),
      [fp],
    );
    const firstEndsAt = new Date(clock.getTime() + config.alertTtlSeconds * 1000).toISOString();
    assert.equal((await inAlertmanager(fp))?.endsAt, firstEndsAt);

    // The next runs: nothing arrived, nothing changed, the last post is younger than 60 s.
    for (const offset of [10, 20, 50]) {
      const idle = await runAt(offset);
      assert.deepEqual(idle.alerts, [], `no post at +${offset} s`);
      assert.equal(idle.report.unchanged, 1);
      assert.equal(idle.report.firing, 1, 'still firing');
    }
    const unchanged = await theRecord();
    assert.equal(unchanged.last_sent_at?.getTime(), opened.last_sent_at?.getTime(), 'not re-sent');
    assert.equal(unchanged.last_seen.getTime(), opened.last_seen.getTime(), 'not re-written');
    assert.equal((await inAlertmanager(fp))?.state, 'active', 'Alertmanager still holds it firing from the first post');

    // 65 s after the first post (its endsAt is 600 s after it): renewed, same startsAt, endsAt moved ahead.
    const renewal = await runAt(65);
    assert.equal(renewal.report.renewed, 1);
    assert.deepEqual(
      renewal.alerts.map((a) => [a.labels.fingerprint, a.startsAt]),
      [[fp, opened.first_seen.toISOString()]],
    );
    assert.ok(Date.now() < Date.parse(firstEndsAt), 'renewed before the first endsAt passed');
    const renewedEndsAt = new Date(clock.getTime() + config.alertTtlSeconds * 1000).toISOString();
    assert.deepEqual(await inAlertmanager(fp), { endsAt: renewedEndsAt, state: 'active' });
    assert.equal((await theRecord()).last_sent_at?.getTime(), clock.getTime());

    // The complete read the mutation named arrives late: its session is judged again and the finding resolved.
    await ingestSpans(db, spans(['all']), tenant);
    const cleared = await runAt(75);
    assert.equal(cleared.report.resolved, 1);
    const resolved = await theRecord();
    assert.equal(resolved.resolution, 'no_longer_matches');
    assert.equal(resolved.alert_status, 'resolved');
    assert.deepEqual(
      cleared.alerts.map((a) => [a.labels.fingerprint, a.endsAt]),
      [[fp, clock.toISOString()]],
    );
    // Its endsAt is now in the past: Alertmanager resolved it (its list holds active alerts only), where the
    // renewal alone would have kept it firing for another ten minutes.
    assert.equal(await inAlertmanager(fp), undefined, 'Alertmanager no longer holds it firing');
  });
});
