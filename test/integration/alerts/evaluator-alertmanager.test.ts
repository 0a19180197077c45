/**
 * The evaluator as a real process against the real Alertmanager, which pages the webhook sink this test runs:
 * exactly the expected owners are paged, a killed and restarted evaluator pages nobody twice, and a finding
 * that stops matching is resolved.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listRecords } from '../../../alerts/findings/store.ts';
import { setOwner } from '../../../alerts/owners/store.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, requireAlertmanager, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import { buildSessionSpans } from '../../../testkit/session-spans.ts';
import { type Notification, startWebhookSink, type WebhookSink } from '../../../testkit/webhook-sink.ts';
import { EXPECTED, OWNERS, scenarioSessions } from './scenarios.ts';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const RUN_CLI = fileURLToPath(new URL('./run-cli.ts', import.meta.url));

let db: TestDatabase;
let sink: WebhookSink;
const tenant = uniqueName('acme');
const now = new Date();

interface EvaluatorProcess {
  child: ChildProcess;
  /** Evaluation reports printed so far. */
  runs: Array<{ alertsSent: number; sendError: string | null; resolved: number }>;
  waitForRuns(n: number, timeoutMs?: number): Promise<void>;
  stderr(): string;
}

function startEvaluator(): EvaluatorProcess {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', RUN_CLI, 'alerts', '--interval', '1s', '--tenant', tenant, '--json'],
    {
      cwd: ROOT,
      env: {
        ...process.env,
        TOOLTRAIL_CLICKHOUSE_DATABASE: db.database,
        TOOLTRAIL_ALERTS_ALERT_TTL: '60s',
        // Unchanged alerts are re-posted only once their last post is this old: short, so the restart test below
        // sees the restarted evaluator re-send what the killed one had sent.
        TOOLTRAIL_ALERTS_REFRESH_INTERVAL: '2s',
        TOOLTRAIL_ALERTS_EVALUATOR_NAME: 'it-evaluator',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const runs: EvaluatorProcess['runs'] = [];
  let err = '';
  let buffered = '';
  const waiters = new Set<() => void>();
  child.stdout?.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl = buffered.indexOf('\n');
    while (nl >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      if (line.startsWith('{')) runs.push(JSON.parse(line));
      nl = buffered.indexOf('\n');
    }
    for (const w of waiters) w();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  return {
    child,
    runs,
    stderr: () => err,
    waitForRuns(n, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (runs.length >= n) {
            clearTimeout(timer);
            waiters.delete(check);
            resolve();
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`evaluator made ${runs.length} of ${n} runs; exit ${child.exitCode}; stderr:\n${err}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
  };
}

async function kill(p: EvaluatorProcess, signal: NodeJS.Signals): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((resolve) => p.child.once('exit', resolve));
  p.child.kill(signal);
  await exited;
}

const ownerOf = (n: Notification) => n.body.groupLabels.owner ?? n.body.commonLabels.owner ?? null;
const describeNotification = (n: Notification) =>
  `${n.path} ${n.body.status} ${n.body.groupLabels.alertname} owner=${ownerOf(n)} alerts=${n.body.alerts
    .map((a) => `${a.labels.fingerprint}:${a.status}`)
    .join(',')}`;

let evaluatorA: EvaluatorProcess | undefined;
let evaluatorB: EvaluatorProcess | undefined;

before(async () => {
  await requireAlertmanager();
  sink = await startWebhookSink();
  db = await freshDatabase('tt_alerts_am');
  await ingestSpans(db, buildSessionSpans(scenarioSessions(now)).spans, tenant);
  const meta = { by: 'test', reason: 'scenario owners', at: new Date(now.getTime() - 86_400_000) };
  await setOwner(
    db.ch,
    db.database,
    { tenant, kind: 'tool', subject: 'delete_service_accounts', source: '' },
    OWNERS.iam,
    meta,
  );
  await setOwner(db.ch, db.database, { tenant, kind: 'agent', subject: 'auditor', source: '' }, OWNERS.audit, meta);
  await setOwner(db.ch, db.database, { tenant, kind: 'tool', subject: 'rotate_keys', source: '' }, OWNERS.keys, meta);
});
after(async () => {
  for (const p of [evaluatorA, evaluatorB]) if (p) await kill(p, 'SIGTERM');
  await sink?.close();
  await db?.drop();
});

describe('evaluator -> Alertmanager -> owners', () => {
  it('pages exactly the expected owners through their receivers, once each, and nothing else', async () => {
    evaluatorA = startEvaluator();
    const expectedGroups = EXPECTED.map((e) => ({
      path: e.owner ? '/owner' : '/escalation',
      owner: e.owner,
      alertname:
        e.kind === 'mutation_after_incomplete_read'
          ? 'MutationAfterIncompleteRead'
          : 'AbsenceMutationWithoutCompleteEvidence',
    }));
    await sink.waitFor(
      () =>
        expectedGroups.every((g) =>
          sink
            .forTenant(tenant)
            .some((n) => n.path === g.path && ownerOf(n) === g.owner && n.body.groupLabels.alertname === g.alertname),
        ),
      `pages for ${expectedGroups.map((g) => `${g.path}:${g.owner}`).join(', ')}`,
      30_000,
    );
    // Several keep-alive runs later, and once Alertmanager has paged all it held, still one page per group.
    await evaluatorA.waitForRuns(evaluatorA.runs.length + 3);
    await sink.drained();

    const pages = sink.forTenant(tenant);
    assert.deepEqual(
      pages
        .map((n) => ({
          path: n.path,
          owner: ownerOf(n),
          alertname: n.body.groupLabels.alertname,
          status: n.body.status,
        }))
        .sort((a, b) => `${a.path}${a.owner}`.localeCompare(`${b.path}${b.owner}`)),
      expectedGroups
        .map((g) => ({ ...g, status: 'firing' }))
        .sort((a, b) => `${a.path}${a.owner}`.localeCompare(`${b.path}${b.owner}`)),
      `pages received:\n${pages.map(describeNotification).join('\n')}`,
    );

    const stored = await listRecords(db.ch, db.database, { tenant, activeOnly: true });
    for (const n of pages) {
      assert.equal(n.body.alerts.length, 1, describeNotification(n));
      const alert = n.body.alerts[0]!;
      const rec = stored.find((r) => r.finding.fingerprint === alert.labels.fingerprint);
      assert.ok(rec, `a stored finding for page ${describeNotification(n)}`);
      assert.equal(alert.labels.tenant, tenant);
      assert.equal(alert.labels.severity, rec.finding.severity);
      assert.equal(alert.labels.tool, rec.finding.tool);
      assert.equal(alert.labels.agent, rec.finding.agent);
      assert.equal(alert.labels.team, rec.finding.team ?? undefined);
      assert.equal(new Date(alert.startsAt).getTime(), rec.first_seen.getTime());
      assert.ok(alert.annotations.summary);
      assert.match(alert.annotations.reconstruct_command ?? '', /tooltrail reconstruct --finding [0-9a-f]{16}/);
      if (rec.finding.kind === 'mutation_after_incomplete_read') {
        assert.ok(alert.annotations.reasons, 'the incomplete reasons');
        assert.ok(alert.annotations.evidence_spans?.includes(rec.finding.read_span_ids[0]!), 'the evidence spans');
      }
    }
    assert.ok(
      evaluatorA.runs.every((r) => r.sendError === null),
      evaluatorA.stderr(),
    );
  });

  it('pages nobody twice when the evaluator is killed and restarted', async () => {
    assert.ok(evaluatorA, 'the first test started the evaluator');
    const before = sink.forTenant(tenant).length;
    await kill(evaluatorA, 'SIGKILL');
    evaluatorB = startEvaluator();
    await evaluatorB.waitForRuns(4);
    await sink.drained();
    const after = sink.forTenant(tenant);
    assert.ok(
      evaluatorB.runs.some((r) => r.alertsSent >= EXPECTED.length),
      `the restarted evaluator did re-send its alerts (sent per run: ${evaluatorB.runs.map((r) => r.alertsSent)})`,
    );
    assert.deepEqual(after.slice(before).map(describeNotification), []);
  });

  it('resolves a finding that stops matching, and tells its owner', async () => {
    assert.ok(evaluatorB, 'the second test started the evaluator');
    // A late span: the snapshot the key rotation named was in fact read completely before the rotation.
    const session = scenarioSessions(now).find((s) => s.session === 'named-incomplete-evidence')!;
    const late = buildSessionSpans([
      {
        ...session,
        steps: [
          {
            effect: 'read',
            tool: 'list_signing_keys',
            resource: 'signing_keys_v2',
            complete: true,
            items: 7,
            snapshot: 'keys-snap-1',
            callId: 'late-complete-read',
            at: 5,
          },
        ],
      },
    ]);
    await ingestSpans(
      db,
      late.spans.filter((s) => s.name.startsWith('execute_tool')),
      tenant,
    );
    await sink.waitFor(
      () => sink.forTenant(tenant).some((n) => n.body.status === 'resolved' && ownerOf(n) === OWNERS.keys.owner),
      `a resolved notification for ${OWNERS.keys.owner}`,
      20_000,
    );
    await sink.drained();
    const resolvedPages = sink.forTenant(tenant).filter((n) => n.body.status === 'resolved');
    assert.deepEqual(
      resolvedPages.map((n) => `${n.path} ${ownerOf(n)}`),
      [`/owner ${OWNERS.keys.owner}`],
    );

    const records = await listRecords(db.ch, db.database, { tenant });
    const rotated = records.find((r) => r.finding.session === 'named-incomplete-evidence');
    assert.equal(rotated?.resolution, 'no_longer_matches');
    assert.equal(rotated?.alert_status, 'resolved');
    assert.equal(records.filter((r) => r.resolved_at === null).length, EXPECTED.length - 1);
  });
});
