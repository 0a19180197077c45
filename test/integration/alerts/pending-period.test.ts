/**
 * The pending period (Prometheus `for`) against the real ClickHouse and Alertmanager: a mutation whose complete
 * evidence is stored after it (a session spread over traces lands on several Kafka partitions) looks like a
 * finding for a moment; held for the pending period, it is cleared before anyone is paged, while a finding
 * that stays true is paged once the period has passed, with startsAt = when it was first found.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { Evaluator } from '../../../alerts/evaluator/evaluator.ts';
import { listRecords } from '../../../alerts/findings/store.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import {
  freshDatabase,
  requireAlertmanager,
  services,
  type TestDatabase,
  uniqueName,
} from '../../../testkit/services.ts';
import { buildSessionSpans, type SessionScript } from '../../../testkit/session-spans.ts';
import { startWebhookSink, type WebhookSink } from '../../../testkit/webhook-sink.ts';

let db: TestDatabase;
let sink: WebhookSink;
const tenant = uniqueName('pending');
const realNow = Date.now();
const start = new Date(realNow - 10 * 60_000);

const sessions: SessionScript[] = [
  {
    // Cleared by evidence that arrives late: the complete read of the snapshot the mutation names.
    session: 'late-evidence',
    agent: 'cleanup-agent',
    start,
    steps: [
      {
        effect: 'read',
        tool: 'list_accounts',
        resource: 'accounts',
        complete: false,
        reasons: ['CLIENT_LIMIT_REACHED'],
        items: 0,
        snapshot: 'acc-1',
        at: 0,
      },
      {
        effect: 'read',
        label: 'complete',
        tool: 'list_accounts',
        resource: 'accounts',
        complete: true,
        items: 40,
        snapshot: 'acc-2',
        at: 5,
      },
      {
        effect: 'mutation',
        label: 'mutation',
        tool: 'delete_accounts',
        resource: 'accounts',
        basis: 'absence',
        evidenceSnapshots: ['acc-2'],
        at: 10,
      },
    ],
  },
  {
    // A real finding: an absence-based mutation after an incomplete, empty read.
    session: 'really-incomplete',
    agent: 'cleanup-agent',
    start,
    steps: [
      {
        effect: 'read',
        tool: 'list_keys',
        resource: 'keys',
        complete: false,
        reasons: ['CLIENT_LIMIT_REACHED'],
        items: 0,
        at: 0,
      },
      { effect: 'mutation', label: 'mutation', tool: 'revoke_keys', resource: 'keys', basis: 'absence', at: 10 },
    ],
  },
];

before(async () => {
  await requireAlertmanager();
  sink = await startWebhookSink();
  db = await freshDatabase('tt_pending_period');
});
after(async () => {
  await sink?.close();
  await db?.drop();
});

test('a finding cleared by late evidence within the pending period is never paged; one still true is paged after it', async () => {
  const built = buildSessionSpans(sessions);
  const late = built.ids.get('late-evidence/complete')?.spanId;
  const cleared = built.ids.get('late-evidence/mutation')?.spanId;
  const real = built.ids.get('really-incomplete/mutation')?.spanId;
  assert.ok(late && cleared && real);
  const isLate = (s: (typeof built.spans)[number]) => s.spanContext().spanId === late;

  let now = new Date(realNow);
  const evaluator = new Evaluator({
    ch: db.ch,
    database: db.database,
    config: {
      ...defaultAlertsConfig(services.alertmanager.url),
      tenant,
      evaluatorName: uniqueName('pending'),
      pendingSeconds: 120,
      alertTtlSeconds: 600,
    },
    clock: () => now,
    logger: { info: () => {}, error: (m, e) => assert.fail(`${m}: ${e}`) },
  });

  // Everything but the complete read: both mutations look like findings.
  await ingestSpans(
    db,
    built.spans.filter((s) => !isLate(s)),
    tenant,
  );
  const first = await evaluator.runOnce();
  assert.equal(first.found, 2);
  assert.equal(first.pending, 2);
  assert.equal(first.alertsSent, 0);

  // The complete read arrives; two minutes later the first finding is gone and the second is paged.
  await ingestSpans(db, built.spans.filter(isLate), tenant);
  now = new Date(realNow + 180_000);
  const second = await evaluator.runOnce();
  assert.equal(second.found, 1);
  assert.equal(second.opened, 1);
  assert.equal(second.pending, 0);

  const records = await listRecords(db.ch, db.database, { tenant });
  const byMutation = new Map(records.map((r) => [r.finding.mutation_span_id, r]));
  assert.equal(byMutation.get(cleared)?.alert_status, 'not_sent');
  assert.equal(byMutation.get(cleared)?.resolution, 'no_longer_matches');
  assert.equal(byMutation.get(real)?.alert_status, 'firing');
  assert.equal(byMutation.get(real)?.first_seen.getTime(), realNow);

  const fingerprint = (span: string) => byMutation.get(span)?.finding.fingerprint;
  await sink.waitFor(
    () => sink.forTenant(tenant).some((n) => n.body.alerts.some((a) => a.labels.fingerprint === fingerprint(real))),
    'the page for the real finding',
  );
  const paged = sink.forTenant(tenant).flatMap((n) => n.body.alerts);
  assert.ok(
    paged.every((a) => a.labels.fingerprint !== fingerprint(cleared)),
    'the cleared finding was paged',
  );
  // Alertmanager writes Go RFC 3339 times, trailing zeros of the fraction trimmed: compare instants, not text.
  const startsAt = paged.find((a) => a.labels.fingerprint === fingerprint(real))?.startsAt;
  assert.equal(startsAt === undefined ? undefined : Date.parse(startsAt), realNow);
});
