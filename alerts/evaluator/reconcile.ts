/**
 * What one evaluation changes, as a pure function of what was found now and what was stored before:
 *   - a finding seen before keeps its first_seen (the alert's startsAt), so a re-send is the same alert;
 *   - an active finding that this run judged and no longer found is resolved (`no_longer_matches`), a mutation
 *     finding older than findingActiveSeconds is resolved as `expired`; Alertmanager is told with endsAt = now;
 *   - an active finding this run did not judge (an incremental run: nothing arrived in its session) is carried:
 *     its verdict stands, it still expires by age, and its owner is resolved anew (a new owner relabels it);
 *   - a mutation found only after it expired (an evaluator catching up after downtime) is recorded, never paged;
 *   - a finding whose labels changed (new owner, new severity) resolves the old alert and fires the new one;
 *   - with a pending period (Prometheus's `for`), a finding is paged only once it has been found for that long:
 *     until then it is recorded, not sent, and if it stops matching meanwhile nobody was ever paged;
 *   - what did not change costs nothing: an alert is re-posted only when it changed or when its last post is old
 *     enough to need renewing before its endsAt (in bounded batches, oldest first), and a record is written only
 *     when something about it changed or it was posted.
 */
import { isDeepStrictEqual } from 'node:util';
import { type PostableAlert, sameAlert, toPostableAlert } from '../alertmanager/payload.ts';
import { addSeconds } from '../clock.ts';
import { type Finding, MUTATION_KINDS } from '../findings/finding.ts';
import type { FindingRecord } from '../findings/store.ts';

/** When a firing alert that did not change is posted again to keep it alive (its endsAt moves ahead). */
export interface RenewalPolicy {
  /** Renew once the last post is this old. */
  afterSeconds: number;
  /** Renew whatever the batch bound once the last post is this old: it would lapse before a later run renewed it. */
  urgentAfterSeconds: number;
  /** At most this many renewals per run that are not urgent, oldest post first. */
  batch: number;
}

/** Every firing alert renewed on every run (what a policy-less caller gets). */
export const RENEW_EVERY_RUN: RenewalPolicy = { afterSeconds: 0, urgentAfterSeconds: 0, batch: 0 };

export interface ReconcileInput {
  now: Date;
  detected: readonly Finding[];
  /** The stored records: open ones, and those of the range being judged (findings/store.ts loadOpenAndRecent). */
  stored: ReadonlyMap<string, FindingRecord>;
  /**
   * Whether this run judged what a stored record is about (default: everything). An open record judged and not
   * found again no longer matches; one not judged is carried.
   */
  judged?: (rec: FindingRecord) => boolean;
  /** A carried finding as it would be built now (its owner resolved anew); default: as stored. */
  relabel?: (f: Finding) => Finding;
  findingActiveSeconds: number;
  /**
   * A finding not yet sent fires only once first_seen <= now - pendingSeconds (default 0: at once). It absorbs
   * data that arrives after the mutation it clears: a session spread over traces, hence over Kafka partitions,
   * can have its complete evidence stored a little after the mutation that names it.
   */
  pendingSeconds?: number;
  /** Default: RENEW_EVERY_RUN. */
  renewal?: RenewalPolicy;
}

export interface ReconcilePlan {
  /** Sent as firing (endsAt ahead) and written: new, promoted from pending, changed, relabeled or renewed. */
  firing: FindingRecord[];
  /** Written, not sent: new or changed, still inside the pending period. */
  pending: FindingRecord[];
  /** Resolved (now or earlier) and Alertmanager not yet told: sent with endsAt = resolved_at. */
  resolving: FindingRecord[];
  /** Records that change but send nothing (expired on arrival, resolved before ever being sent). */
  silent: FindingRecord[];
  /** Earlier label sets of findings whose labels changed: sent resolved. */
  relabeled: Array<{ finding: Finding; first_seen: Date }>;
  /** Active records this run neither sends nor writes: nothing about them changed and their alert is fresh. */
  unchanged: FindingRecord[];
  /** How many of `firing` are renewals of alerts that did not change. */
  renewed: number;
}

/** The same finding, field for field (JSON round trip: a parsed stored finding has no undefined keys). */
function sameFinding(a: Finding, b: Finding): boolean {
  return a === b || isDeepStrictEqual(JSON.parse(JSON.stringify(a)), JSON.parse(JSON.stringify(b)));
}

export function reconcile(input: ReconcileInput): ReconcilePlan {
  const { now, stored } = input;
  const horizon = addSeconds(now, -input.findingActiveSeconds).getTime();
  const expired = (f: Finding) => MUTATION_KINDS.has(f.kind) && Date.parse(f.event_time) < horizon;
  const judged = input.judged ?? (() => true);
  const relabel = input.relabel ?? ((f: Finding) => f);
  const renewal = input.renewal ?? RENEW_EVERY_RUN;
  const plan: ReconcilePlan = {
    firing: [],
    pending: [],
    resolving: [],
    silent: [],
    relabeled: [],
    unchanged: [],
    renewed: 0,
  };
  const renewable: FindingRecord[] = [];
  const seen = new Set<string>();
  const pendingUntil = now.getTime() - (input.pendingSeconds ?? 0) * 1000;

  /** An open record after this run, finding `f` (a new version when it changed), not expired. */
  const keep = (prev: FindingRecord, f: Finding) => {
    const changed = !sameFinding(prev.finding, f);
    const rec = changed ? { ...prev, finding: f, last_seen: now } : prev;
    if (prev.alert_status === 'firing') {
      if (!sameAlert(prev.finding, f)) plan.relabeled.push({ finding: prev.finding, first_seen: prev.first_seen });
      // last_sent_at null while firing: the latest version was never sent (the POST failed).
      if (changed || prev.last_sent_at === null) plan.firing.push({ ...rec, last_seen: now });
      else renewable.push(prev);
    } else if (prev.first_seen.getTime() <= pendingUntil) {
      plan.firing.push({ ...rec, last_seen: now });
    } else if (changed) {
      plan.pending.push(rec);
    } else {
      plan.unchanged.push(prev);
    }
  };
  const open = (rec: FindingRecord) => {
    if (rec.first_seen.getTime() > pendingUntil) plan.pending.push(rec);
    else plan.firing.push(rec);
  };

  for (const f of input.detected) {
    if (seen.has(f.fingerprint)) continue;
    seen.add(f.fingerprint);
    const prev = stored.get(f.fingerprint);
    if (prev && prev.resolved_at === null) {
      if (expired(f)) resolve(plan, { ...prev, finding: f, last_seen: now }, now, 'expired');
      else keep(prev, f);
      continue;
    }
    if (prev && expired(f)) {
      // Resolved earlier and past its time: nothing new, unless Alertmanager was never told it ended.
      if (prev.alert_status === 'firing') plan.resolving.push(prev);
      continue;
    }
    const fresh: FindingRecord = {
      finding: f,
      first_seen: now,
      last_seen: now,
      resolved_at: null,
      resolution: '',
      alert_status: 'pending',
      last_sent_at: null,
    };
    if (expired(f)) {
      plan.silent.push({ ...fresh, resolved_at: now, resolution: 'expired', alert_status: 'not_sent' });
    } else {
      // New, or matching again after it was resolved: a new alert episode, so a new startsAt.
      open(fresh);
    }
  }

  for (const [fp, prev] of stored) {
    if (seen.has(fp)) continue;
    if (prev.resolved_at === null) {
      if (expired(prev.finding)) resolve(plan, prev, now, 'expired');
      else if (judged(prev)) resolve(plan, prev, now, 'no_longer_matches');
      else keep(prev, relabel(prev.finding));
    } else if (prev.alert_status === 'firing') {
      plan.resolving.push(prev); // resolved earlier, but telling Alertmanager failed: tell it again
    }
  }

  chooseRenewals(renewable, now, renewal, plan);
  return plan;
}

/** The firing alerts that did not change: those due are renewed (urgent ones always, others up to the batch). */
function chooseRenewals(candidates: FindingRecord[], now: Date, policy: RenewalPolicy, plan: ReconcilePlan): void {
  const age = (r: FindingRecord) => now.getTime() - (r.last_sent_at as Date).getTime();
  const dueMs = policy.afterSeconds * 1000;
  const urgentMs = policy.urgentAfterSeconds * 1000;
  const due = candidates.filter((r) => age(r) >= Math.min(dueMs, urgentMs));
  due.sort((a, b) => age(b) - age(a));
  let optional = policy.batch;
  for (const r of due) {
    if (age(r) >= urgentMs || optional-- > 0) {
      plan.firing.push({ ...r, last_seen: now });
      plan.renewed++;
    } else plan.unchanged.push(r);
  }
  for (const r of candidates) if (age(r) < Math.min(dueMs, urgentMs)) plan.unchanged.push(r);
}

function resolve(plan: ReconcilePlan, rec: FindingRecord, now: Date, resolution: 'expired' | 'no_longer_matches') {
  const resolved: FindingRecord = { ...rec, resolved_at: now, resolution };
  if (rec.alert_status === 'firing') plan.resolving.push(resolved);
  else plan.silent.push({ ...resolved, alert_status: 'not_sent' });
}

/** The alerts to POST for a plan: firing ones kept alive until now + ttl, resolved ones ended. */
export function planAlerts(plan: ReconcilePlan, now: Date, alertTtlSeconds: number): PostableAlert[] {
  const endsAt = addSeconds(now, alertTtlSeconds);
  return [
    ...plan.relabeled.map((r) => toPostableAlert(r.finding, r.first_seen, now)),
    ...plan.firing.map((r) => toPostableAlert(r.finding, r.first_seen, endsAt)),
    ...plan.resolving.map((r) => toPostableAlert(r.finding, r.first_seen, r.resolved_at ?? now)),
  ];
}

/**
 * The records to write once the POST succeeded, or failed: then statuses stay, and a firing alert's last_sent_at
 * is cleared, so the next run sends its latest version first (it may be a new owner's, or new annotations).
 */
export function recordsAfterSend(plan: ReconcilePlan, now: Date, sent: boolean): FindingRecord[] {
  if (!sent) {
    const unsent = plan.firing.map((r) => (r.alert_status === 'firing' ? { ...r, last_sent_at: null } : r));
    return [...unsent, ...plan.pending, ...plan.resolving, ...plan.silent];
  }
  return [
    ...plan.firing.map((r) => ({ ...r, alert_status: 'firing' as const, last_sent_at: now })),
    ...plan.pending,
    ...plan.resolving.map((r) => ({ ...r, alert_status: 'resolved' as const, last_sent_at: now })),
    ...plan.silent,
  ];
}
