import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultAlertsConfig } from '../../../alerts/config.ts';
import type { ResolvedOwner } from '../../../alerts/owners/resolve.ts';
import { decideWarning } from '../../../alerts/warnings/lifecycle.ts';
import { daysAgo, NOW, warningStats } from './fixtures.ts';

const cfg = defaultAlertsConfig().warnings;
const owner = (assignedDaysAgo: number): ResolvedOwner => ({
  owner: 'search-infra',
  team: 'platform',
  assigned_at: daysAgo(assignedDaysAgo),
});

describe('warning lifecycle rules', () => {
  it('escalates a persistent warning nobody owns, moving it to escalated', () => {
    const d = decideWarning(warningStats(), null, cfg, NOW);
    assert.equal(d.action, 'escalate');
    assert.deepEqual(
      d.transitions.map((t) => [t.from, t.to]),
      [['active', 'escalated']],
    );
    assert.match(d.transitions[0]?.reason ?? '', /seen on 80 of the last 90 days with no owner/);
  });

  it('does not record the escalation again for an already escalated warning', () => {
    const d = decideWarning(warningStats({ state: 'escalated', state_changed_at: daysAgo(3) }), null, cfg, NOW);
    assert.equal(d.action, 'escalate');
    assert.deepEqual(d.transitions, []);
  });

  it('reminds the owner once the deadline (assignment + remindAfterDays) has passed', () => {
    const d = decideWarning(warningStats(), owner(31), cfg, NOW);
    assert.equal(d.action, 'remind');
    assert.equal(d.deadline, daysAgo(1));
  });

  it('does not remind an owner before the deadline', () => {
    assert.equal(decideWarning(warningStats(), owner(29), cfg, NOW).action, 'none');
  });

  it("takes an acknowledgement's due date as the deadline", () => {
    const acked = warningStats({ state: 'acknowledged', state_changed_at: daysAgo(40), due_at: daysAgo(-5) });
    assert.equal(decideWarning(acked, owner(200), cfg, NOW).action, 'none');
    const overdue = warningStats({ state: 'acknowledged', state_changed_at: daysAgo(40), due_at: daysAgo(1) });
    assert.equal(decideWarning(overdue, owner(200), cfg, NOW).action, 'remind');
  });

  it('hands an escalated warning back to active when an owner appears', () => {
    const d = decideWarning(warningStats({ state: 'escalated', state_changed_at: daysAgo(10) }), owner(2), cfg, NOW);
    assert.deepEqual(
      d.transitions.map((t) => [t.from, t.to]),
      [['escalated', 'active']],
    );
    assert.equal(d.action, 'none');
  });

  it('does nothing for a warning seen on too few days', () => {
    assert.equal(decideWarning(warningStats({ persistent: false, days_seen: 30 }), null, cfg, NOW).action, 'none');
  });

  it('proposes retirement for a warning not seen for retireAfterDays, owned or not', () => {
    const stale = warningStats({ persistent: false, stale: true, last_seen: daysAgo(45) });
    assert.equal(decideWarning(stale, null, cfg, NOW).action, 'propose_retirement');
    assert.equal(decideWarning(stale, owner(100), cfg, NOW).action, 'propose_retirement');
    assert.deepEqual(decideWarning(stale, null, cfg, NOW).transitions, []);
  });

  it('retires a stale warning itself when autoRetire is on', () => {
    const stale = warningStats({ persistent: false, stale: true, last_seen: daysAgo(45) });
    const d = decideWarning(stale, null, { ...cfg, autoRetire: true }, NOW);
    assert.equal(d.action, 'retire');
    assert.deepEqual(
      d.transitions.map((t) => [t.from, t.to]),
      [['active', 'retired']],
    );
  });

  it('leaves a retired warning alone while it stays silent', () => {
    const retired = warningStats({
      state: 'retired',
      state_changed_at: daysAgo(20),
      last_seen: daysAgo(25),
      stale: false,
    });
    assert.deepEqual(decideWarning(retired, null, cfg, NOW), {
      action: 'none',
      transitions: [],
      state: 'retired',
      deadline: null,
    });
  });

  it('reactivates a retired warning seen again after its retirement, then judges it', () => {
    const back = warningStats({ state: 'retired', state_changed_at: daysAgo(20), last_seen: daysAgo(0) });
    const d = decideWarning(back, null, cfg, NOW);
    assert.deepEqual(
      d.transitions.map((t) => [t.from, t.to]),
      [
        ['retired', 'active'],
        ['active', 'escalated'],
      ],
    );
    assert.equal(d.action, 'escalate');
  });
});
