/**
 * Incremental detection against the real ClickHouse: after its first run, the evaluator judges only the sessions
 * that received reads or mutations since its arrival watermark, keeps the other findings from stored state, and
 * still changes a verdict when evidence arrives late (in another batch than the mutation it concerns).
 * Alertmanager is replaced by a recording sink here (the real one: evaluator-alertmanager.test.ts).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import type { AlertSink } from '../../../alerts/alertmanager/client.ts';
import type { PostableAlert } from '../../../alerts/alertmanager/payload.ts';
import { type AlertsConfig, defaultAlertsConfig } from '../../../alerts/config.ts';
import { Evaluator } from '../../../alerts/evaluator/evaluator.ts';
import { readWatermarks } from '../../../alerts/evaluator/state.ts';
import { type FindingRecord, listRecords } from '../../../alerts/findings/store.ts';
import { Attr, GenAi } from '../../../contract/index.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { ingestSpans } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase, uniqueName } from '../../../testkit/services.ts';
import {
  type BuiltSessions,
  buildSessionSpans,
  pagedThenCompleteThenMutation,
  type SessionScript,
  spanOf,
} from '../../../testkit/session-spans.ts';

const tenant = uniqueName('incr');
let db: TestDatabase;
let config: AlertsConfig;
const quiet = { info: () => {}, error: () => {} };

class RecordingSink implements AlertSink {
  posts: PostableAlert[][] = [];
  async post(alerts: readonly PostableAlert[]) {
    this.posts.push([...alerts]);
  }
  last(fingerprint: string): PostableAlert | undefined {
    return this.posts
      .flat()
      .filter((a) => a.labels.fingerprint === fingerprint)
      .at(-1);
  }
}
const sink = new RecordingSink();

function evaluator(ch: ClickHouseClient = db.ch): Evaluator {
  return new Evaluator({ ch, database: db.database, config, sink, logger: quiet });
}

/** One session's spans, so a test can store some of them now and the others later (a late batch). */
function session(script: Omit<SessionScript, 'start' | 'agent'>): BuiltSessions & { name: string } {
  const start = new Date(Date.now() - 10 * 60_000);
  return { ...buildSessionSpans([{ ...script, agent: 'worker', start }]), name: script.session };
}

function stepSpans(s: BuiltSessions & { name: string }, labels: readonly string[]): ReadableSpan[] {
  const ids = new Set(labels.map((l) => spanOf(s, s.name, l).spanId));
  return s.spans.filter((span) => ids.has(span.spanContext().spanId));
}

async function store(s: BuiltSessions & { name: string }, labels: readonly string[]): Promise<void> {
  await ingestSpans(db, stepSpans(s, labels), tenant);
}

async function recordOf(s: BuiltSessions & { name: string }, mutation: string): Promise<FindingRecord | undefined> {
  const span = spanOf(s, s.name, mutation).spanId;
  return (await listRecords(db.ch, db.database, { tenant })).find((r) => r.finding.mutation_span_id === span);
}

before(async () => {
  db = await freshDatabase('tt_alerts_incr');
  // No slack: a batch is visible once ingestSpans returns, and the counts of judged sessions below stay exact.
  config = { ...defaultAlertsConfig(), tenant, evaluatorName: uniqueName('incr'), arrivalSlackSeconds: 0 };
  const first = await evaluator().runOnce();
  assert.equal(first.arrivedSince, null, 'the first run judges the whole horizon');
});
after(async () => {
  await db?.drop();
});

describe('incremental detection', () => {
  it('judges only the sessions that received data since the arrival watermark', async () => {
    const s = session({
      session: uniqueName('judged-once'),
      steps: [
        { effect: 'read', label: 'page1', tool: 'list_accounts', resource: 'accounts', complete: false, at: 0 },
        { effect: 'mutation', label: 'delete', tool: 'delete_accounts', resource: 'accounts', basis: 'absence', at: 5 },
      ],
    });
    await store(s, ['page1', 'delete']);
    const run = await evaluator().runOnce();
    assert.notEqual(run.arrivedSince, null);
    assert.equal(run.judgedSessions, 1);
    assert.equal((await recordOf(s, 'delete'))?.finding.kind, 'mutation_after_incomplete_read');

    const idle = await evaluator().runOnce();
    assert.equal(idle.judgedSessions, 0, 'nothing arrived: nothing judged');
    const kept = await recordOf(s, 'delete');
    assert.equal(kept?.resolved_at, null, 'a finding whose session received nothing stays active from stored state');
    assert.equal(kept?.alert_status, 'firing');
    const alert = sink.last(kept?.finding.fingerprint ?? '');
    assert.equal(alert?.startsAt, kept?.first_seen.toISOString(), 'kept alive with its first startsAt');
    assert.ok(Date.parse(alert?.endsAt ?? '') > Date.now(), 'and an endsAt ahead');
  });

  it('a complete read stored after the mutation was judged clears its finding (late evidence)', async () => {
    const s = session({
      session: uniqueName('late-evidence'),
      steps: pagedThenCompleteThenMutation(),
    });
    await store(s, ['page1', 'disable']);
    await evaluator().runOnce();
    const raised = await recordOf(s, 'disable');
    assert.equal(raised?.resolved_at, null, 'without its evidence the mutation is a finding');

    await store(s, ['all']);
    const run = await evaluator().runOnce();
    assert.equal(run.judgedSessions, 1);
    const cleared = await recordOf(s, 'disable');
    assert.equal(cleared?.resolution, 'no_longer_matches');
    assert.equal(sink.last(raised?.finding.fingerprint ?? '')?.endsAt, cleared?.resolved_at?.toISOString());
  });

  it('an incomplete read stored after the mutation was judged raises a finding (late incomplete read)', async () => {
    const s = session({
      session: uniqueName('late-incomplete'),
      steps: [
        { effect: 'read', label: 'full', tool: 'list_keys', resource: 'keys', complete: true, at: 0 },
        {
          effect: 'read',
          label: 'partial',
          tool: 'list_keys',
          resource: 'keys',
          complete: false,
          reasons: ['RESULT_LIMIT_REACHED'],
          items: 0,
          at: 10,
        },
        { effect: 'mutation', label: 'rotate', tool: 'rotate_keys', resource: 'keys', basis: 'presence', at: 20 },
      ],
    });
    await store(s, ['full', 'rotate']);
    await evaluator().runOnce();
    assert.equal(await recordOf(s, 'rotate'), undefined, 'after a complete read alone: no finding');

    await store(s, ['partial']);
    await evaluator().runOnce();
    const raised = await recordOf(s, 'rotate');
    assert.equal(raised?.finding.kind, 'mutation_after_incomplete_read');
    assert.deepEqual(raised?.finding.reasons, ['RESULT_LIMIT_REACHED']);
    assert.equal(raised?.alert_status, 'firing');
  });

  it('re-judges third-party-shaped sessions (no conversation id, no sequence: the trace is the session)', async () => {
    const s = session({
      session: uniqueName('plain-sdk'),
      steps: [
        { effect: 'read', label: 'page1', tool: 'list_users', resource: 'users', complete: false, at: 0 },
        {
          effect: 'read',
          label: 'all',
          tool: 'list_users',
          resource: 'users',
          complete: true,
          snapshot: 'u-2',
          at: 10,
        },
        {
          effect: 'mutation',
          label: 'purge',
          tool: 'purge_users',
          resource: 'users',
          basis: 'absence',
          evidenceSnapshots: ['u-2'],
          at: 20,
        },
      ],
    });
    // What a plain OpenTelemetry SDK of another runtime sends: the contract attributes, no session of ours.
    const plain = (span: ReadableSpan): ReadableSpan => {
      const attributes = { ...span.attributes };
      delete attributes[GenAi.CONVERSATION_ID];
      delete attributes[Attr.SESSION_SEQUENCE];
      return Object.create(span, { attributes: { value: attributes } }) as ReadableSpan;
    };
    await ingestSpans(db, stepSpans(s, ['page1', 'purge']).map(plain), tenant);
    await evaluator().runOnce();
    const raised = await recordOf(s, 'purge');
    assert.equal(raised?.resolved_at, null);
    assert.equal(raised?.finding.session, spanOf(s, s.name, 'purge').traceId, 'the trace id names the session');

    await ingestSpans(db, stepSpans(s, ['all']).map(plain), tenant);
    await evaluator().runOnce();
    assert.equal((await recordOf(s, 'purge'))?.resolution, 'no_longer_matches');
  });

  it('a run that dies between storing its findings and advancing the watermark is done again, same findings', async () => {
    const s = session({
      session: uniqueName('crash'),
      steps: [
        { effect: 'read', label: 'page1', tool: 'list_buckets', resource: 'buckets', complete: false, at: 0 },
        { effect: 'mutation', label: 'drop', tool: 'drop_buckets', resource: 'buckets', basis: 'absence', at: 5 },
      ],
    });
    await store(s, ['page1', 'drop']);
    const before = await readWatermarks(db.ch, db.database, config.evaluatorName);
    // The same ClickHouse, except that the watermark's insert never happens (the process died there).
    const dying = Object.create(db.ch) as ClickHouseClient;
    dying.insert = ((params: Parameters<ClickHouseClient['insert']>[0]) =>
      String(params.table).endsWith('.evaluator_state')
        ? Promise.reject(new Error('killed before the watermark'))
        : db.ch.insert(params)) as ClickHouseClient['insert'];
    await assert.rejects(evaluator(dying).runOnce(), /killed before the watermark/);
    assert.deepEqual(await readWatermarks(db.ch, db.database, config.evaluatorName), before);
    const first = await recordOf(s, 'drop');
    assert.equal(first?.alert_status, 'firing', 'the findings were stored and paged before the crash');

    const again = await evaluator().runOnce();
    assert.equal(again.judgedSessions, 1, 'what arrived before the crash is judged again');
    const second = await recordOf(s, 'drop');
    assert.equal(second?.finding.fingerprint, first?.finding.fingerprint);
    assert.deepEqual(second?.first_seen, first?.first_seen, 'same finding, same first_seen: no new page');
    assert.equal(sink.last(first?.finding.fingerprint ?? '')?.startsAt, first?.first_seen.toISOString());
    assert.notDeepEqual(await readWatermarks(db.ch, db.database, config.evaluatorName), before);
  });
});
