import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAlerts, type ReconcileInput, reconcile, recordsAfterSend } from '../../../alerts/evaluator/reconcile.ts';
import type { Finding } from '../../../alerts/findings/finding.ts';
import type { FindingRecord } from '../../../alerts/findings/store.ts';
import { minutesAgo, mutationFinding, NOW, record } from './fixtures.ts';

const DAY_S = 86_400;
const stored = (...recs: FindingRecord[]) => new Map(recs.map((r) => [r.finding.fingerprint, r]));
/** One run at NOW with a day's activity window, what every case shares; `extra` holds the case's own inputs. */
const judge = (detected: Finding[], prev: FindingRecord[] = [], extra: Partial<ReconcileInput> = {}) =>
  reconcile({ now: NOW, detected, stored: stored(...prev), findingActiveSeconds: DAY_S, ...extra });

describe('reconcile', () => {
  it('keeps first_seen for a finding found again, so the re-sent alert has the same startsAt', () => {
    const f = mutationFinding();
    const prev = record(f);
    const plan = judge([f], [prev]);
    assert.equal(plan.firing.length, 1);
    assert.equal(plan.firing[0]?.first_seen, prev.first_seen);
    assert.equal(plan.firing[0]?.last_seen, NOW);
    const [alert] = planAlerts(plan, NOW, 300);
    assert.equal(alert?.startsAt, prev.first_seen.toISOString());
    assert.equal(alert?.endsAt, new Date(NOW.getTime() + 300_000).toISOString());
  });

  it('opens a new finding with first_seen = now, pending until Alertmanager took it', () => {
    const plan = judge([mutationFinding()]);
    assert.equal(plan.firing[0]?.first_seen, NOW);
    assert.equal(plan.firing[0]?.alert_status, 'pending');
    assert.equal(recordsAfterSend(plan, NOW, true)[0]?.alert_status, 'firing');
  });

  it('resolves an active finding that is no longer found, with endsAt = now', () => {
    const prev = record(mutationFinding());
    const plan = judge([], [prev]);
    assert.equal(plan.resolving.length, 1);
    assert.equal(plan.resolving[0]?.resolution, 'no_longer_matches');
    assert.equal(plan.resolving[0]?.resolved_at, NOW);
    assert.equal(planAlerts(plan, NOW, 300)[0]?.endsAt, NOW.toISOString());
    assert.equal(recordsAfterSend(plan, NOW, true)[0]?.alert_status, 'resolved');
  });

  it('expires a mutation finding once it is older than findingActiveSeconds', () => {
    const old = mutationFinding({ event_time: minutesAgo(25 * 60).toISOString() });
    const plan = judge([old], [record(old)]);
    assert.deepEqual(
      plan.resolving.map((r) => r.resolution),
      ['expired'],
    );
    assert.equal(plan.firing.length, 0);
  });

  it('records but never pages a mutation found only after it expired (catching up after an outage)', () => {
    const old = mutationFinding({ event_time: minutesAgo(3 * 24 * 60).toISOString() });
    const plan = judge([old]);
    assert.equal(planAlerts(plan, NOW, 300).length, 0);
    assert.deepEqual(
      plan.silent.map((r) => [r.resolution, r.alert_status]),
      [['expired', 'not_sent']],
    );
  });

  it('never expires state-like findings (warnings, rates) by age', () => {
    const w = mutationFinding({
      kind: 'persistent_unowned_warning',
      event_time: minutesAgo(10 * 24 * 60).toISOString(),
    });
    const plan = judge([w], [record(w)]);
    assert.equal(plan.firing.length, 1);
  });

  it('re-sends a resolution that Alertmanager was not told about', () => {
    const prev = record(mutationFinding(), {
      resolved_at: minutesAgo(2),
      resolution: 'no_longer_matches',
      alert_status: 'firing',
    });
    const plan = judge([], [prev]);
    assert.equal(plan.resolving.length, 1);
    assert.equal(planAlerts(plan, NOW, 300)[0]?.endsAt, minutesAgo(2).toISOString());
  });

  it('does not send a finding resolved before it was ever sent', () => {
    const prev = record(mutationFinding(), { alert_status: 'pending', last_sent_at: null });
    const plan = judge([], [prev]);
    assert.equal(planAlerts(plan, NOW, 300).length, 0);
    assert.equal(plan.silent[0]?.alert_status, 'not_sent');
  });

  it('resolves the old alert and fires the new one when the owner changes', () => {
    const prev = record(mutationFinding());
    const moved = mutationFinding({ owner: 'new-owner' });
    const alerts = planAlerts(judge([moved], [prev]), NOW, 300);
    assert.deepEqual(
      alerts.map((a) => [a.labels.owner, a.endsAt === NOW.toISOString() ? 'resolved' : 'firing']),
      [
        ['iam-oncall', 'resolved'],
        ['new-owner', 'firing'],
      ],
    );
  });

  it('reopens a resolved finding that matches again as a new episode', () => {
    const prev = record(mutationFinding(), {
      resolved_at: minutesAgo(5),
      resolution: 'no_longer_matches',
      alert_status: 'resolved',
    });
    const plan = judge([mutationFinding()], [prev]);
    assert.equal(plan.firing[0]?.first_seen, NOW);
    assert.equal(plan.firing[0]?.resolved_at, null);
  });

  it('keeps statuses when the POST failed, so the next run sends again', () => {
    const plan = judge([mutationFinding()]);
    assert.deepEqual(
      recordsAfterSend(plan, NOW, false).map((r) => [r.alert_status, r.last_sent_at]),
      [['pending', null]],
    );
  });

  it('counts a fingerprint found twice in one run once', () => {
    const f = mutationFinding();
    const plan = judge([f, f]);
    assert.equal(plan.firing.length, 1);
  });
});

describe('reconcile with a pending period (Prometheus `for`)', () => {
  const PENDING_S = 120;
  const judgePending = (detected: Finding[], prev: FindingRecord[]) =>
    judge(detected, prev, { pendingSeconds: PENDING_S });

  it('records a new finding without paging it while it is younger than the pending period', () => {
    const plan = judgePending([mutationFinding()], []);
    assert.equal(plan.firing.length, 0);
    assert.equal(plan.pending.length, 1);
    assert.deepEqual(planAlerts(plan, NOW, 300), []);
    const [written] = recordsAfterSend(plan, NOW, true);
    assert.equal(written?.alert_status, 'pending');
    assert.equal(written?.first_seen, NOW);
  });

  it('pages a finding still found once the pending period has passed, with startsAt = when it was first found', () => {
    const f = mutationFinding();
    const prev = record(f, { first_seen: minutesAgo(3), alert_status: 'pending', last_sent_at: null });
    const plan = judgePending([f], [prev]);
    assert.equal(plan.pending.length, 0);
    assert.equal(plan.firing.length, 1);
    assert.equal(planAlerts(plan, NOW, 300)[0]?.startsAt, minutesAgo(3).toISOString());
  });

  it('keeps holding a finding found again inside the pending period', () => {
    const f = mutationFinding();
    const prev = record(f, { first_seen: minutesAgo(1), alert_status: 'pending', last_sent_at: null });
    const plan = judgePending([f], [prev]);
    assert.deepEqual(plan.unchanged, [prev], 'unchanged: held as stored, nothing written');
    assert.deepEqual(planAlerts(plan, NOW, 300), []);
    const changed = judgePending([mutationFinding({ summary: 'new evidence named' })], [prev]);
    assert.equal(changed.pending[0]?.first_seen, prev.first_seen, 'a changed one is written, still held');
    assert.deepEqual(planAlerts(changed, NOW, 300), []);
  });

  it('resolves without a page a finding that stops matching inside its pending period (late evidence cleared it)', () => {
    const prev = record(mutationFinding(), { first_seen: minutesAgo(1), alert_status: 'pending', last_sent_at: null });
    const plan = judgePending([], [prev]);
    assert.deepEqual(planAlerts(plan, NOW, 300), []);
    assert.equal(plan.silent[0]?.alert_status, 'not_sent');
    assert.equal(plan.silent[0]?.resolution, 'no_longer_matches');
  });

  it('keeps an alert already firing alive whatever the pending period', () => {
    const f = mutationFinding();
    const prev = record(f, { first_seen: minutesAgo(1) });
    const plan = judgePending([f], [prev]);
    assert.equal(plan.firing.length, 1);
    assert.equal(plan.pending.length, 0);
  });
});

describe('reconcile: what did not change costs nothing, alerts are renewed before they lapse', () => {
  const POLICY = { afterSeconds: 150, urgentAfterSeconds: 180, batch: 2 };
  const sentAgo = (fingerprint: string, minutes: number) =>
    record(mutationFinding({ fingerprint }), { last_sent_at: minutesAgo(minutes) });
  const judgeRenewing = (detected: Finding[], prev: FindingRecord[], extra: Partial<ReconcileInput> = {}) =>
    judge(detected, prev, { renewal: POLICY, ...extra });

  it('neither re-posts nor re-writes an unchanged firing finding found again while its last post is fresh', () => {
    const f = mutationFinding();
    const prev = record(f, { last_sent_at: minutesAgo(1) });
    const plan = judgeRenewing([f], [prev]);
    assert.deepEqual(planAlerts(plan, NOW, 300), []);
    assert.deepEqual(recordsAfterSend(plan, NOW, true), []);
    assert.deepEqual(plan.unchanged, [prev]);
  });

  it('re-posts an unchanged firing finding once its last post is older than the refresh interval, same startsAt', () => {
    const f = mutationFinding();
    const prev = record(f, { last_sent_at: minutesAgo(2.6) });
    const plan = judgeRenewing([f], [prev]);
    assert.equal(plan.renewed, 1);
    const [alert] = planAlerts(plan, NOW, 300);
    assert.equal(alert?.startsAt, prev.first_seen.toISOString());
    assert.equal(alert?.endsAt, new Date(NOW.getTime() + 300_000).toISOString());
    assert.equal(recordsAfterSend(plan, NOW, true)[0]?.last_sent_at, NOW);
  });

  it('renews at most the batch per run, oldest post first, and always those about to lapse', () => {
    const recs = [sentAgo('b1', 2.6), sentAgo('b2', 2.7), sentAgo('b3', 2.8), sentAgo('u1', 3.1), sentAgo('u2', 3.2)];
    const plan = judgeRenewing([], recs, { judged: () => false });
    assert.deepEqual(
      plan.firing.map((r) => r.finding.fingerprint),
      ['u2', 'u1', 'b3', 'b2'],
      'the two urgent ones (older than 180 s), then the batch of 2 among the merely due',
    );
    assert.deepEqual(
      plan.unchanged.map((r) => r.finding.fingerprint),
      ['b1'],
    );
  });

  it('carries an open finding this run did not judge: kept, expired by age, relabeled when its owner changed', () => {
    const kept = record(mutationFinding({ fingerprint: 'kept' }));
    const old = record(mutationFinding({ fingerprint: 'old', event_time: minutesAgo(25 * 60).toISOString() }));
    const moved = record(mutationFinding({ fingerprint: 'moved', tool: 'rotate_keys' }));
    const plan = judgeRenewing([], [kept, old, moved], {
      judged: () => false,
      relabel: (f) => (f.tool === 'rotate_keys' ? { ...f, owner: 'keys-oncall' } : f),
    });
    assert.deepEqual(
      plan.unchanged.map((r) => r.finding.fingerprint),
      ['kept'],
    );
    assert.deepEqual(
      plan.resolving.map((r) => [r.finding.fingerprint, r.resolution]),
      [['old', 'expired']],
    );
    assert.deepEqual(
      planAlerts(plan, NOW, 300).map((a) => [a.labels.fingerprint, a.labels.owner, a.endsAt === NOW.toISOString()]),
      [
        ['moved', 'iam-oncall', true],
        ['moved', 'keys-oncall', false],
        ['old', 'iam-oncall', true],
      ],
    );
  });

  it('resolves a judged open finding that is no longer found, never a carried one', () => {
    const judgedRec = record(mutationFinding({ fingerprint: 'judged' }));
    const carriedRec = record(mutationFinding({ fingerprint: 'carried' }));
    const plan = judgeRenewing([], [judgedRec, carriedRec], { judged: (r) => r.finding.fingerprint === 'judged' });
    assert.deepEqual(
      plan.resolving.map((r) => [r.finding.fingerprint, r.resolution]),
      [['judged', 'no_longer_matches']],
    );
    assert.deepEqual(
      plan.unchanged.map((r) => r.finding.fingerprint),
      ['carried'],
    );
  });

  it('sends first, on the next run, a firing alert whose POST failed (its last post is cleared)', () => {
    const prev = record(mutationFinding(), { last_sent_at: minutesAgo(1) });
    const changed = mutationFinding({ owner: 'new-owner' });
    const failed = recordsAfterSend(judgeRenewing([changed], [prev]), NOW, false);
    assert.deepEqual(
      failed.map((r) => [r.alert_status, r.last_sent_at]),
      [['firing', null]],
    );
    const next = judgeRenewing([], failed, { judged: () => false });
    assert.deepEqual(
      planAlerts(next, NOW, 300).map((a) => a.labels.owner),
      ['new-owner'],
    );
  });
});
