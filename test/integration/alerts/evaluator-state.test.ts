/**
 * The evaluator's memory lives in ClickHouse: a failed POST is retried by the next run, a restarted evaluator
 * keeps startsAt, and an evaluator catching up after a long outage records old findings without paging them.
 * (Alertmanager is replaced by a recording sink here; the real one is in evaluator-alertmanager.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { AlertSink } from '../../../alerts/alertmanager/client.ts';
import type { PostableAlert } from '../../../alerts/alertmanager/payload.ts';
import { type AlertsConfig, defaultAlertsConfig } from '../../../alerts/config.ts';
import { Evaluator } from '../../../alerts/evaluator/evaluator.ts';
import { readWatermark } from '../../../alerts/evaluator/state.ts';
import { listRecords } from '../../../alerts/findings/store.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { buildSessionSpans } from '../../../testkit/session-spans.ts';
import { EXPECTED, scenarioSessions } from './scenarios.ts';

const HOUR = 3_600_000;
const now = new Date();
const tenant = uniqueName('acme');
let db: TestDatabase;
let config: AlertsConfig;

class RecordingSink implements AlertSink {
  posts: PostableAlert[][] = [];
  failing = false;
  async post(alerts: readonly PostableAlert[]) {
    if (this.failing) throw new Error('Alertmanager is down');
    this.posts.push([...alerts]);
  }
}
const quiet = { info: () => {}, error: () => {} };

before(async () => {
  db = await freshDatabase('tt_alerts_state');
  await ingestSpans(db, buildSessionSpans(scenarioSessions(now)).spans, tenant);
  config = { ...defaultAlertsConfig(), tenant };
});
after(async () => {
  await db?.drop();
});

describe('evaluator state in ClickHouse', () => {
  it('keeps findings pending while Alertmanager is down and sends them on the next run', async () => {
    const sink = new RecordingSink();
    sink.failing = true;
    const evaluator = new Evaluator({
      ch: db.ch,
      database: db.database,
      config,
      clock: () => now,
      sink,
      logger: quiet,
    });
    const failed = await evaluator.runOnce();
    assert.match(failed.sendError ?? '', /Alertmanager is down/);
    assert.deepEqual(
      [...new Set((await listRecords(db.ch, db.database, { tenant })).map((r) => r.alert_status))],
      ['pending'],
    );

    sink.failing = false;
    const later = new Date(now.getTime() + 60_000);
    const ok = await new Evaluator({
      ch: db.ch,
      database: db.database,
      config,
      clock: () => later,
      sink,
      logger: quiet,
    }).runOnce();
    assert.equal(ok.sendError, null);
    assert.equal(sink.posts.length, 1);
    assert.equal(sink.posts[0]?.length, EXPECTED.length);
    const records = await listRecords(db.ch, db.database, { tenant });
    assert.deepEqual([...new Set(records.map((r) => r.alert_status))], ['firing']);
    // startsAt is when the finding was first seen (the failed run), not when it was finally sent.
    for (const a of sink.posts[0] ?? []) assert.equal(a.startsAt, now.toISOString());
    assert.deepEqual(await readWatermark(db.ch, db.database, config.evaluatorName), later);
  });

  it('resolves mutation findings once they are older than findingActiveSeconds', async () => {
    const sink = new RecordingSink();
    const dayLater = new Date(now.getTime() + 25 * HOUR);
    await new Evaluator({
      ch: db.ch,
      database: db.database,
      config,
      clock: () => dayLater,
      sink,
      logger: quiet,
    }).runOnce();
    const sent = sink.posts.flat();
    assert.equal(sent.length, EXPECTED.length);
    assert.ok(
      sent.every((a) => a.endsAt === dayLater.toISOString()),
      'every alert ended now',
    );
    const records = await listRecords(db.ch, db.database, { tenant });
    assert.deepEqual([...new Set(records.map((r) => `${r.resolution}/${r.alert_status}`))], ['expired/resolved']);
  });

  it('records findings found while catching up after an outage, without paging them', async () => {
    const other = uniqueName('initech');
    await ingestSpans(db, buildSessionSpans(scenarioSessions(now)).spans, other);
    const c = { ...config, tenant: other, evaluatorName: 'catch-up' };
    const sink = new RecordingSink();
    // Last evaluation two days before the sessions; back three days after them.
    const before = new Date(now.getTime() - 48 * HOUR);
    const back = new Date(now.getTime() + 72 * HOUR);
    await new Evaluator({
      ch: db.ch,
      database: db.database,
      config: c,
      clock: () => before,
      sink,
      logger: quiet,
    }).runOnce();
    const report = await new Evaluator({
      ch: db.ch,
      database: db.database,
      config: c,
      clock: () => back,
      sink,
      logger: quiet,
    }).runOnce();
    assert.equal(report.since, new Date(before.getTime() - c.latenessSeconds * 1000).toISOString());
    assert.deepEqual(sink.posts.flat(), []);
    const records = await listRecords(db.ch, db.database, { tenant: other });
    assert.equal(records.length, EXPECTED.length);
    assert.ok(records.every((r) => r.resolution === 'expired' && r.alert_status === 'not_sent'));
  });
});
