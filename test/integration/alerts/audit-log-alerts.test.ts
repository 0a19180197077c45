/**
 * The audit log's alerts (alerts/audit-log/rules.ts) against the real ClickHouse and Alertmanager: a checkpoint
 * that stopped advancing while rows arrived, a gap in leaf indices, and a consistency failure (found by
 * audit/log/monitor.ts, as the assembly wires it) each page the audit owner; an untouched log pages nobody.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { alertmanagerClient } from '../../../alerts/alertmanager/client.ts';
import { AUDIT_ALERT_NAMES, watchAuditLog } from '../../../alerts/audit-log/rules.ts';
import { setOwner } from '../../../alerts/owners/store.ts';
import { defaultLogConfig } from '../../../audit/log/config.ts';
import { checkNewestCheckpoints } from '../../../audit/log/monitor.ts';
import { generateNoteKey, parseSigner, parseVerifier } from '../../../audit/log/note.ts';
import { LogStore } from '../../../audit/log/store.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { decodeExportTraceServiceRequest } from '../../../platform/otlp/index.ts';
import { serializeSpans, stampTenant } from '../../../testkit/ingest.ts';
import { freshDatabase, requireAlertmanager, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { startWebhookSink, type WebhookSink } from '../../../testkit/webhook-sink.ts';
import { runScenario } from '../reconstruct/scenario.ts';

const HOUR = 3_600_000;

describe('the audit log pages its owner', () => {
  let db: TestDatabase;
  let sink: WebhookSink;
  let amUrl: string;
  const key = generateNoteKey('audit.alerts.test');
  const verifiers = [parseVerifier(key.verifier)];
  const owner = { owner: uniqueName('audit-oncall'), team: 'security' };
  before(async () => {
    amUrl = await requireAlertmanager();
    sink = await startWebhookSink();
    db = await freshDatabase('tt_audit_alerts');
    await setOwner(db.ch, db.database, { tenant: '', kind: 'audit', subject: '*', source: '' }, owner, {
      by: 'test',
      reason: 'the audit owner',
      at: new Date(Date.now() - HOUR),
    });
  });
  after(async () => {
    await sink?.close();
    await db?.drop();
  });

  /** A tenant with `batches` stored through the writer, the log on and signing; `clockMs` shifts the writer's clock. */
  async function loggedTenant(batches: number, clockMs = 0) {
    const tenant = uniqueName('t');
    const chain = uniqueName('w');
    const rec = createDigestRecorder(db.ch, {
      database: db.database,
      chain,
      now: () => Date.now() + clockMs,
      log: { ...defaultLogConfig(), signer: parseSigner(key.signer), everyRows: 5, everySeconds: 3600 },
    });
    for (let b = 0; b < batches; b++) {
      const rows = flatten(
        stampTenant(decodeExportTraceServiceRequest(serializeSpans(runScenario(uniqueName('s')).spans)), tenant),
      );
      await createClickHouseWriter(db.ch, { database: db.database, batchStored: rec }).writeRows(rows, {
        dedupToken: uniqueName('batch'),
      });
    }
    return { tenant, log: chain };
  }

  const watch = (tenant: string) =>
    watchAuditLog({
      ch: db.ch,
      database: db.database,
      tenant,
      now: new Date(),
      stallSeconds: 300,
      alertTtlSeconds: 600,
      sink: alertmanagerClient(amUrl, 5000),
      consistency: () => checkNewestCheckpoints(new LogStore(db.ch, db.database), verifiers, { tenant }),
    });

  async function paged(tenant: string, alertname: string) {
    await sink.waitFor(
      () =>
        sink
          .forTenant(tenant)
          .some(
            (n) =>
              n.path === '/owner' &&
              n.body.groupLabels.alertname === alertname &&
              n.body.alerts.some((a) => a.labels.owner === owner.owner && a.labels.tenant === tenant),
          ),
      `${alertname} for ${tenant} paged to ${owner.owner}`,
      30_000,
    );
  }

  it('an untouched log pages nobody', async () => {
    const t = await loggedTenant(2);
    assert.deepEqual(await watch(t.tenant), []);
  });

  it('a checkpoint that stopped advancing while rows arrive pages AuditCheckpointStalled', async () => {
    // The writer's clock says its checkpoint was signed two hours ago; the rows are stored now.
    const t = await loggedTenant(1, -2 * HOUR);
    const alerts = await watch(t.tenant);
    assert.deepEqual(
      alerts.map((a) => [a.labels.alertname, a.labels.log, a.labels.owner]),
      [[AUDIT_ALERT_NAMES.stalled, t.log, owner.owner]],
    );
    await paged(t.tenant, AUDIT_ALERT_NAMES.stalled);
  });

  it('a gap in leaf indices pages AuditLeafGap', async () => {
    const t = await loggedTenant(1);
    await db.ch.command({
      // The data of one leaf (the batch's one warning group) deleted.
      query: `ALTER TABLE ${db.database}.audit_log_tiles DELETE WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries' AND row_table = 'tool_call_warnings'`,
      query_params: t,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const alerts = await watch(t.tenant);
    assert.deepEqual(
      alerts.map((a) => [a.labels.alertname, a.labels.log]),
      [[AUDIT_ALERT_NAMES.gap, t.log]],
    );
    assert.match(alerts[0]!.annotations.summary ?? '', /1 were deleted/);
    await paged(t.tenant, AUDIT_ALERT_NAMES.gap);
  });

  it('a consistency failure pages AuditLogInconsistent with its reason', async () => {
    const t = await loggedTenant(2);
    await db.ch.command({
      query: `ALTER TABLE ${db.database}.audit_log_tiles UPDATE hashes = reverse(hashes) WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile'`,
      query_params: t,
      clickhouse_settings: { mutations_sync: '2' },
    });
    const alerts = await watch(t.tenant);
    assert.deepEqual(
      alerts.map((a) => [a.labels.alertname, a.labels.log, a.labels.reason]),
      [[AUDIT_ALERT_NAMES.inconsistent, t.log, 'checkpoint_root_mismatch']],
    );
    await paged(t.tenant, AUDIT_ALERT_NAMES.inconsistent);
  });
});
