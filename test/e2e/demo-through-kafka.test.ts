/**
 * The demo's agent through the production path: OTLP exporter -> collector -> Kafka -> ingest -> ClickHouse ->
 * evaluator -> the real Alertmanager -> the owners' webhook receivers.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type DemoResult, runDemo } from '../../demo/run.ts';
import { createClickHouse } from '../../platform/clickhouse.ts';
import { requireAlertmanager, requireClickHouse, requireKafka, services, uniqueName } from '../../testkit/services.ts';
import { startWebhookSink, type WebhookSink } from '../../testkit/webhook-sink.ts';

const database = uniqueName('tt_e2e_kafka');
let sink: WebhookSink;
let result: DemoResult;
const output: string[] = [];

before(async () => {
  await Promise.all([requireKafka(), requireClickHouse(), requireAlertmanager()]);
  sink = await startWebhookSink();
  result = await runDemo({
    kafka: true,
    color: false,
    out: (l) => output.push(l),
    database,
    topic: uniqueName('e2e_spans'),
    groupId: uniqueName('e2e-ingest'),
  });
});

after(async () => {
  await sink?.close();
  const ch = createClickHouse({ url: services.clickhouse.url });
  await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await ch.close();
});

const mutationFindings = () =>
  result.findings
    .filter((f) => f.finding.kind === 'mutation_after_incomplete_read')
    .map((f) => f.finding)
    .sort((a, b) => `${a.session}${a.tool}`.localeCompare(`${b.session}${b.tool}`));

test('every mutation after the incomplete reads is found, in both naive sessions, and none in the careful one', () => {
  assert.deepEqual(
    mutationFindings().map((f) => [f.session, f.tool, f.owner]),
    [
      ['demo-naive-guard-off', 'close_ticket', null],
      ['demo-naive-guard-off', 'delete_service_accounts', 'identity-oncall'],
      ['demo-naive-guard-off', 'mark_control_compliant', 'grc-oncall'],
      ['demo-naive-guard-on', 'close_ticket', null],
      ['demo-naive-guard-on', 'delete_service_accounts', 'identity-oncall'],
      ['demo-naive-guard-on', 'mark_control_compliant', 'grc-oncall'],
    ],
  );
  assert.ok(!result.findings.some((f) => f.finding.session === 'demo-careful'));
});

test('absence-based mutations that no guard stopped are critical; those the guard held back are not', () => {
  for (const f of mutationFindings()) {
    const expected =
      f.session === 'demo-naive-guard-off' && f.tool !== 'delete_service_accounts' ? 'critical' : 'warning';
    assert.equal(f.severity, expected, `${f.session} ${f.tool}`);
  }
});

test('each page reaches its owner through Alertmanager, and unowned ones the escalation receiver', async () => {
  const expected = mutationFindings();
  const delivered = (fp: string) =>
    sink.notifications.find(
      (n) => n.body.status === 'firing' && n.body.alerts.some((a) => a.labels.fingerprint === fp),
    );
  await sink.waitFor(() => expected.every((f) => delivered(f.fingerprint)), 'a page per finding', 30_000);
  for (const f of expected) {
    const n = delivered(f.fingerprint)!;
    assert.equal(n.path, f.owner ? '/owner' : '/escalation', `${f.session} ${f.tool}`);
    if (f.owner) assert.equal(n.body.groupLabels.owner, f.owner);
  }
});

test('the stored record of the run verifies against the digests the writer chained', () => {
  assert.equal(result.verified, true, output.join('\n'));
});
