/**
 * The warning lifecycle rules, as a pure function of a warning's facts (persistent_unowned_warning.sql), its
 * resolved owner, the configuration and "now":
 *   retired, seen again after its retirement        -> active again (then judged as below)
 *   stale (not seen for retireAfterDays)             -> propose retirement, or retire it when autoRetire
 *   persistent, no owner                             -> escalate (state `escalated`)
 *   persistent, owner, past the deadline             -> remind the owner
 *   escalated, an owner now exists                   -> active (the owner takes it from here)
 * The deadline is the acknowledgement's due date when it has one, else the owner's assignment (or the
 * acknowledgement, whichever is later) + remindAfterDays.
 */
import { DAY_MS } from '../clock.ts';
import type { AlertsConfig } from '../config.ts';
import type { WarningStatsRow } from '../detectors/rows.ts';
import type { ResolvedOwner } from '../owners/resolve.ts';

export const WARNING_STATES = ['active', 'acknowledged', 'escalated', 'retired'] as const;
export type WarningState = (typeof WARNING_STATES)[number];

export type WarningAction = 'escalate' | 'remind' | 'propose_retirement' | 'retire' | 'none';

export interface StateTransition {
  from: WarningState;
  to: WarningState;
  reason: string;
}

export interface WarningDecision {
  action: WarningAction;
  /** In order; applied by the evaluator (never by `tooltrail findings`, which only looks). */
  transitions: StateTransition[];
  /** The state after the transitions. */
  state: WarningState;
  /** The reminder deadline, when the warning has an owner. */
  deadline: string | null;
}

export function decideWarning(
  w: WarningStatsRow,
  owner: ResolvedOwner | null,
  cfg: AlertsConfig['warnings'],
  now: Date,
): WarningDecision {
  const transitions: StateTransition[] = [];
  let state: WarningState = w.state;
  const move = (to: WarningState, reason: string) => {
    if (to === state) return;
    transitions.push({ from: state, to, reason });
    state = to;
  };

  if (state === 'retired') {
    const retiredAt = w.state_changed_at ? Date.parse(w.state_changed_at) : 0;
    if (Date.parse(w.last_seen) <= retiredAt) return { action: 'none', transitions, state, deadline: null };
    move('active', `seen again at ${w.last_seen} after its retirement at ${w.state_changed_at}`);
  }

  const deadline = owner ? deadlineOf(w, owner, cfg, state) : null;

  if (w.stale) {
    if (cfg.autoRetire) {
      move('retired', `not seen since ${w.last_seen} (over ${cfg.retireAfterDays} days): retired automatically`);
      return { action: 'retire', transitions, state, deadline };
    }
    return { action: 'propose_retirement', transitions, state, deadline };
  }

  if (!w.persistent) return { action: 'none', transitions, state, deadline };

  if (!owner) {
    move('escalated', `seen on ${w.days_seen} of the last ${cfg.windowDays} days with no owner`);
    return { action: 'escalate', transitions, state, deadline };
  }
  if (state === 'escalated') move('active', `owner ${owner.owner} assigned at ${owner.assigned_at}`);
  if (deadline !== null && now.getTime() > Date.parse(deadline)) {
    return { action: 'remind', transitions, state, deadline };
  }
  return { action: 'none', transitions, state, deadline };
}

function deadlineOf(
  w: WarningStatsRow,
  owner: ResolvedOwner,
  cfg: AlertsConfig['warnings'],
  state: WarningState,
): string {
  if (state === 'acknowledged' && w.due_at) return w.due_at;
  const since = Math.max(
    Date.parse(owner.assigned_at),
    state === 'acknowledged' && w.state_changed_at ? Date.parse(w.state_changed_at) : 0,
  );
  return new Date(since + cfg.remindAfterDays * DAY_MS).toISOString();
}
