/**
 * The dashboards' scenario corpus, written through the real path: agent sessions become OTel SDK spans
 * (testkit/session-spans.ts), go through OTLP protobuf, decode, flatten and the ingest writer
 * (testkit/ingest.ts); then the alerts evaluator runs its detectors over them and writes findings and
 * warning transitions, and people's actions (owners, acknowledgements, retirements) go through alerts' own stores.
 *
 * What the scenario guarantees (the panels' non-empty expectations rely on it), relative to `now`:
 *  - acme/cleanup-agent `acme-s-critical`: an incomplete EMPTY read of service_accounts (the first page of a paged
 *    read that stopped there), then an absence-based delete of 120 accounts the guard allowed -> a critical mutation
 *    finding (unowned).
 *  - acme/cleanup-agent `acme-s-refused`: a read cut by the client limit, then a delete the guard refused.
 *  - acme/report-agent `acme-s-clean`: a complete read, then an update relying on its snapshot -> no finding.
 *  - globex/report-agent `globex-s-unknown`: a read that said nothing about completeness and returned nothing,
 *    then an absence-based close sent for review -> a finding in globex.
 *  - acme daily reads for 60 days carry PARTIAL_FIELD_SET on api.tickets (nobody owns it: persistent unowned ->
 *    escalation) and DEFAULT_SCOPE_APPLIED on api.accounts (owned by team-identity, acknowledged by them).
 *  - SORT_OVERRIDDEN on api.legacy was seen 50..41 days ago only, and was retired by a person.
 */
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { AlertSink } from '../../../alerts/alertmanager/client.ts';
import type { PostableAlert } from '../../../alerts/alertmanager/payload.ts';
import { DAY_MS } from '../../../alerts/clock.ts';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import { type EvaluationReport, Evaluator } from '../../../alerts/evaluator/evaluator.ts';
import { setOwner } from '../../../alerts/owners/store.ts';
import { recordStateChanges } from '../../../alerts/warnings/store.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import type { TestDatabase } from '../../../testkit/services.ts';
import { buildSessionSpans, type SessionScript } from '../../../testkit/session-spans.ts';

export const TENANTS = ['acme', 'globex'] as const;
export const CRITICAL_SESSION = 'acme-s-critical';
const HOUR_MS = 3_600_000;

function ago(now: Date, ms: number): Date {
  return new Date(now.getTime() - ms);
}

function acmeSessions(now: Date): SessionScript[] {
  const sessions: SessionScript[] = [
    {
      session: CRITICAL_SESSION,
      agent: 'cleanup-agent',
      start: ago(now, 5 * HOUR_MS),
      steps: [
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: false,
          reasons: ['MORE_PAGES_AVAILABLE'],
          items: 0,
          snapshot: 'accounts-snap-1',
          warnings: [{ code: 'STALE_INDEX', source: 'idx-accounts', message: 'index 3 h behind' }],
          // The first page of a paged read that stopped there (the paged-read panels show it).
          callId: 'acme-s-critical-list-1',
          traversal: { id: 'acme-s-critical-list-1', page: 1 },
          at: 0,
        },
        {
          effect: 'mutation',
          tool: 'delete_service_accounts',
          resource: 'service_accounts',
          basis: 'absence',
          targets: 120,
          evidenceSnapshots: ['accounts-snap-1'],
          guard: 'allowed',
          at: 30,
        },
      ],
    },
    {
      session: 'acme-s-refused',
      agent: 'cleanup-agent',
      start: ago(now, 4 * HOUR_MS),
      steps: [
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: false,
          reasons: ['CLIENT_LIMIT_REACHED'],
          items: 50,
          at: 0,
        },
        {
          effect: 'mutation',
          tool: 'delete_service_accounts',
          resource: 'service_accounts',
          basis: 'presence',
          targets: 5,
          guard: 'refused',
          at: 20,
        },
      ],
    },
    {
      session: 'acme-s-clean',
      agent: 'report-agent',
      start: ago(now, 3 * HOUR_MS),
      steps: [
        {
          effect: 'read',
          tool: 'search_tickets',
          resource: 'tickets',
          complete: true,
          items: 12,
          snapshot: 'tickets-1',
          at: 0,
        },
        {
          effect: 'mutation',
          tool: 'update_tickets',
          resource: 'tickets',
          basis: 'presence',
          targets: 3,
          evidenceSnapshots: ['tickets-1'],
          guard: 'allowed',
          at: 10,
        },
      ],
    },
  ];
  // 60 days of daily reports: two persistent warnings, one owned and one not.
  for (let d = 1; d <= 60; d++) {
    sessions.push({
      session: `acme-daily-${d}`,
      agent: 'report-agent',
      start: ago(now, d * DAY_MS + HOUR_MS),
      steps: [
        {
          effect: 'read',
          tool: 'search_tickets',
          resource: 'tickets',
          complete: true,
          items: 40,
          warnings: [
            { code: 'PARTIAL_FIELD_SET', source: 'api.tickets' },
            { code: 'DEFAULT_SCOPE_APPLIED', source: 'api.accounts' },
          ],
          at: 0,
        },
      ],
    });
  }
  // A warning that stopped 41 days ago (then retired by a person).
  for (let d = 41; d <= 50; d++) {
    sessions.push({
      session: `acme-legacy-${d}`,
      agent: 'report-agent',
      start: ago(now, d * DAY_MS + 2 * HOUR_MS),
      steps: [
        {
          effect: 'read',
          tool: 'search_legacy',
          resource: 'tickets',
          complete: true,
          items: 2,
          warnings: [{ code: 'SORT_OVERRIDDEN', source: 'api.legacy' }],
          at: 0,
        },
      ],
    });
  }
  return sessions;
}

function globexSessions(now: Date): SessionScript[] {
  return [
    {
      session: 'globex-s-unknown',
      agent: 'report-agent',
      start: ago(now, 2 * HOUR_MS),
      steps: [
        { effect: 'read', tool: 'search_tickets', resource: 'tickets', items: 0, at: 0 },
        {
          effect: 'mutation',
          tool: 'close_tickets',
          resource: 'tickets',
          basis: 'absence',
          targets: 12,
          guard: 'review_requested',
          at: 15,
        },
      ],
    },
    {
      session: 'globex-s-ok',
      agent: 'cleanup-agent',
      start: ago(now, HOUR_MS),
      steps: [
        {
          effect: 'read',
          tool: 'list_service_accounts',
          resource: 'service_accounts',
          complete: true,
          items: 3,
          at: 0,
        },
      ],
    },
  ];
}

/** Collects what the evaluator would post to Alertmanager (the dashboards do not read it). */
class CollectingSink implements AlertSink {
  readonly posted: PostableAlert[] = [];
  async post(alerts: readonly PostableAlert[]): Promise<void> {
    this.posted.push(...alerts);
  }
}

export interface Scenario {
  now: Date;
  spans: number;
  evaluation: EvaluationReport;
}

const PERSON = { by: 'sre@acme.example', reason: 'dashboard scenario' };

/** Writes the whole scenario into `db` (which has every migration applied). */
export async function writeScenario(db: TestDatabase, now: Date): Promise<Scenario> {
  const perTenant: Array<[string, ReadableSpan[]]> = [
    ['acme', buildSessionSpans(acmeSessions(now)).spans],
    ['globex', buildSessionSpans(globexSessions(now)).spans],
  ];
  let spans = 0;
  for (const [tenant, list] of perTenant) {
    const stored = await ingestSpans(db, list, tenant);
    spans += stored.toolCalls + stored.spans;
  }

  // People's actions, through alerts' own stores (what `tooltrail owners` / `tooltrail warnings` write).
  await setOwner(
    db.ch,
    db.database,
    { tenant: '', kind: 'warning', subject: '*', source: 'api.accounts' },
    { owner: 'team-identity', team: 'identity' },
    { ...PERSON, at: ago(now, 30 * DAY_MS) },
  );
  await recordStateChanges(db.ch, db.database, [
    {
      tenant: 'acme',
      code: 'DEFAULT_SCOPE_APPLIED',
      source: 'api.accounts',
      from: 'active',
      to: 'acknowledged',
      due_at: new Date(now.getTime() + 14 * DAY_MS),
      ...PERSON,
      at: ago(now, 10 * DAY_MS),
    },
    {
      tenant: 'acme',
      code: 'SORT_OVERRIDDEN',
      source: 'api.legacy',
      from: 'active',
      to: 'retired',
      ...PERSON,
      at: ago(now, 5 * DAY_MS),
    },
  ]);

  const evaluator = new Evaluator({
    ch: db.ch,
    database: db.database,
    config: { ...defaultAlertsConfig(), evaluatorName: 'dashboards-test' },
    clock: () => now,
    sink: new CollectingSink(),
    logger: { info: () => {}, error: () => {} },
  });
  const evaluation = await evaluator.runOnce();
  return { now, spans, evaluation };
}
