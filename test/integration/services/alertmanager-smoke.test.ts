import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { WEBHOOK_PATHS } from '../../../services/alertmanager/alertmanager.ts';
import { requireAlertmanager, services, uniqueName } from '../../../testkit/services.ts';
import { startWebhookSink, type WebhookSink } from '../../../testkit/webhook-sink.ts';

let sink: WebhookSink;

before(async () => {
  await requireAlertmanager();
  sink = await startWebhookSink();
});
after(() => sink.close());

const carrying = (alertname: string) =>
  sink.notifications.find((n) => n.body.alerts.some((a) => a.labels.alertname === alertname));

test('an alert posted to the v2 API is routed by its owner label to the owners receiver', async () => {
  const alertname = uniqueName('SmokeOwned');
  const res = await fetch(new URL('/api/v2/alerts', services.alertmanager.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([
      { labels: { alertname, owner: 'team-inventory', severity: 'page' }, annotations: { summary: 'smoke' } },
    ]),
  });
  assert.equal(res.status, 200);
  await sink.waitFor(() => carrying(alertname) !== undefined, alertname, 20_000);
  const n = carrying(alertname)!;
  assert.equal(n.path, WEBHOOK_PATHS.owner);
  assert.equal(n.body.groupLabels.owner, 'team-inventory');
});

test('an alert without an owner is routed to the escalation receiver', async () => {
  const alertname = uniqueName('SmokeUnowned');
  const res = await fetch(new URL('/api/v2/alerts', services.alertmanager.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ labels: { alertname, severity: 'page' } }]),
  });
  assert.equal(res.status, 200);
  await sink.waitFor(() => carrying(alertname) !== undefined, alertname, 20_000);
  assert.equal(carrying(alertname)!.path, WEBHOOK_PATHS.escalation);
});
