import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { after, before, test } from 'node:test';
import { WEBHOOK_PATHS } from '../../../services/alertmanager/alertmanager.ts';
import { requireAlertmanager, services, uniqueName } from '../../support/services.ts';

interface Notification {
  path: string;
  body: { status: string; groupLabels: Record<string, string>; alerts: { labels: Record<string, string> }[] };
}

let server: Server;
const received: Notification[] = [];

before(async () => {
  await requireAlertmanager();
  const url = new URL(services.alertmanager.webhookUrl);
  server = createServer((req, res) => {
    let data = '';
    req.on('data', (c) => {
      data += c;
    });
    req.on('end', () => {
      received.push({ path: req.url ?? '', body: JSON.parse(data) });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(Number(url.port), url.hostname, resolve));
});
after(() => new Promise<void>((resolve) => server.close(() => resolve())));

async function waitFor<T>(pick: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = pick();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out; received ${JSON.stringify(received)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('an alert posted to the v2 API is routed by its owner label to the owners receiver', async () => {
  const alertname = uniqueName('SmokeOwned');
  const res = await fetch(new URL('/api/v2/alerts', services.alertmanager.url), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify([{ labels: { alertname, owner: 'team-inventory', severity: 'page' }, annotations: { summary: 'smoke' } }]),
  });
  assert.equal(res.status, 200);
  const n = await waitFor(() => received.find((r) => r.body.alerts.some((a) => a.labels.alertname === alertname)));
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
  const n = await waitFor(() => received.find((r) => r.body.alerts.some((a) => a.labels.alertname === alertname)));
  assert.equal(n.path, WEBHOOK_PATHS.escalation);
});
