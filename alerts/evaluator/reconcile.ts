/**
 * What one evaluation changes, as a pure function of what was found now and what was stored before:
 *   - a finding seen before keeps its first_seen (the alert's startsAt), so a re-send is the same alert;
 *   - an active finding no longer found is resolved (`no_longer_matches`), a mutation finding older than
 *     findingActiveSeconds is resolved as `expired`; Alertmanager is told with endsAt = now;
 *   - a mutation found only after it expired (an evaluator catching up after downtime) is recorded, never paged;
 *   - a finding whose labels changed (new owner, new severity) resolves the old alert and fires the new one;
 *   - with a pending period (Prometheus's `for`), a finding is paged only once it has been found for that long:
 *     until then it is recorded, not sent, and if it stops matching meanwhile nobody was ever paged.
 */
import { type PostableAlert, sameAlert, toPostableAlert } from '../alertmanager/payload.ts';
import { addSeconds } from '../clock.ts';
import { type Finding, MUTATION_KINDS } from '../findings/finding.ts';
import type { FindingRecord } from '../findings/store.ts';

export interface ReconcileInput {
  now: Date;
  detected: readonly Finding[];
  /** Open records and the records of the range being judged (findings/store.ts loadOpenAndRecent). */
  stored: ReadonlyMap<string, FindingRecord>;
  findingActiveSeconds: number;
  /**
   * A finding not yet sent fires only once first_seen <= now - pendingSeconds (default 0: at once). It absorbs
   * data that arrives after the mutation it clears: a session spread over traces, hence over Kafka partitions,
   * can have its complete evidence stored a little after the mutation that names it.
   */
  pendingSeconds?: number;
}

export interface ReconcilePlan {
  /** Active after this run: sent as firing (endsAt ahead). */
  firing: FindingRecord[];
  /** Active, never sent, still inside the pending period: recorded, not sent. */
  pending: FindingRecord[];
  /** Resolved (now or earlier) and Alertmanager not yet told: sent with endsAt = resolved_at. */
  resolving: FindingRecord[];
  /** Records that change but send nothing (expired on arrival, resolved before ever being sent). */
  silent: FindingRecord[];
  /** Earlier label sets of findings whose labels changed: sent resolved. */
  relabeled: Array<{ finding: Finding; first_seen: Date }>;
}

export function reconcile(input: ReconcileInput): ReconcilePlan {
  const { now, stored } = input;
  const horizon = addSeconds(now, -input.findingActiveSeconds).getTime();
  const expired = (f: Finding) => MUTATION_KINDS.has(f.kind) && Date.parse(f.event_time) < horizon;
  const plan: ReconcilePlan = { firing: [], pending: [], resolving: [], silent: [], relabeled: [] };
  const seen = new Set<string>();
  const pendingUntil = now.getTime() - (input.pendingSeconds ?? 0) * 1000;
  const activate = (rec: FindingRecord) => {
    if (rec.alert_status !== 'firing' && rec.first_seen.getTime() > pendingUntil) plan.pending.push(rec);
    else plan.firing.push(rec);
  };

  for (const f of input.detected) {
    if (seen.has(f.fingerprint)) continue;
    seen.add(f.fingerprint);
    const prev = stored.get(f.fingerprint);
    if (prev && prev.resolved_at === null) {
      if (expired(f)) {
        resolve(plan, { ...prev, finding: f, last_seen: now }, now, 'expired');
        continue;
      }
      if (prev.alert_status === 'firing' && !sameAlert(prev.finding, f)) {
        plan.relabeled.push({ finding: prev.finding, first_seen: prev.first_seen });
      }
      activate({ ...prev, finding: f, last_seen: now });
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
      activate(fresh);
    }
  }

  for (const [fp, prev] of stored) {
    if (seen.has(fp)) continue;
    if (prev.resolved_at === null) {
      resolve(plan, prev, now, expired(prev.finding) ? 'expired' : 'no_longer_matches');
    } else if (prev.alert_status === 'firing') {
      plan.resolving.push(prev); // resolved earlier, but telling Alertmanager failed: tell it again
    }
  }
  return plan;
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

/** The records to write once the POST succeeded (or failed: statuses stay, so the next run retries). */
export function recordsAfterSend(plan: ReconcilePlan, now: Date, sent: boolean): FindingRecord[] {
  if (!sent) return [...plan.firing, ...plan.pending, ...plan.resolving, ...plan.silent];
  return [
    ...plan.firing.map((r) => ({ ...r, alert_status: 'firing' as const, last_sent_at: now })),
    ...plan.pending,
    ...plan.resolving.map((r) => ({ ...r, alert_status: 'resolved' as const, last_sent_at: now })),
    ...plan.silent,
  ];
}
