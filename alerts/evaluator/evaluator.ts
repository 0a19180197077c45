/**
 * The evaluator: on a schedule, runs the detectors from the watermark, persists findings with stable
 * fingerprints, applies the warning lifecycle transitions and keeps Alertmanager in step (firing alerts renewed
 * before their endsAt, resolved ones ended). Everything it remembers lives in ClickHouse (it keeps a copy of the
 * open findings between runs, alerts/evaluator/carried.ts), so a restarted evaluator sends the same alerts (same
 * labels, same startsAt) and Alertmanager pages nobody twice.
 */
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { type AlertSink, alertmanagerClient } from '../alertmanager/client.ts';
import type { PostableAlert } from '../alertmanager/payload.ts';
import { addSeconds, type Clock, systemClock } from '../clock.ts';
import { type AlertsConfig, EVALUATOR_ACTOR } from '../config.ts';
import { detect } from '../findings/detect.ts';
import { MUTATION_KINDS } from '../findings/finding.ts';
import { writeRecords } from '../findings/store.ts';
import { recordStateChanges, type StateChange } from '../warnings/store.ts';
import { CarriedFindings } from './carried.ts';
import { withCurrentOwner } from './current-owner.ts';
import { planAlerts, type RenewalPolicy, reconcile, recordsAfterSend } from './reconcile.ts';
import { type Schedule, startSchedule } from './schedule.ts';
import { clickhouseNow, readWatermarks, writeWatermarks } from './state.ts';

export interface EvaluatorLogger {
  info(message: string): void;
  error(message: string, err?: unknown): void;
}

export interface EvaluatorOptions {
  ch: ClickHouseClient;
  database: string;
  config: AlertsConfig;
  clock?: Clock;
  /** Where alerts go; default: the configured Alertmanager. */
  sink?: AlertSink;
  logger?: EvaluatorLogger;
}

export interface EvaluationReport {
  at: string;
  /** How long the run took, from reading the watermarks to writing them. */
  durationMs: number;
  /** Range mode (the first run): mutations that started from here on were judged. */
  since: string;
  /** Incremental mode: what arrived from here on was judged (null: this run judged the whole horizon). */
  arrivedSince: string | null;
  /** Incremental mode: how many sessions were judged again. */
  judgedSessions: number | null;
  /** Active findings after this run (found now, or carried from earlier runs). */
  found: number;
  /** Active findings Alertmanager has (or is being sent) as firing. */
  firing: number;
  /** Findings paged as firing for the first time in this run. */
  opened: number;
  /** Findings found but still inside the pending period (recorded, not paged yet). */
  pending: number;
  /** Findings resolved in this run (or whose resolution was re-sent). */
  resolved: number;
  /** Firing alerts that did not change, posted again to keep them alive (their last post was old). */
  renewed: number;
  /** Active findings this run neither posted nor wrote: nothing about them changed. */
  unchanged: number;
  alertsSent: number;
  /** The POST to Alertmanager failed (statuses kept; the next run retries). */
  sendError: string | null;
  stateChanges: number;
}

const POST_BATCH = 500;

export const consoleLogger: EvaluatorLogger = {
  info: (m) => console.error(`tooltrail alerts: ${m}`),
  error: (m, err) => console.error(`tooltrail alerts: ${m}${err ? `: ${(err as Error).message ?? String(err)}` : ''}`),
};

/**
 * Renew a firing alert once its last post is alertRefreshSeconds old, at most alertRefreshBatch per run, except
 * those that would lapse before a later run: endsAt is last post + alertTtlSeconds, and the next run may come two
 * intervals from now (one interval plus a slow run).
 */
export function renewalPolicy(c: AlertsConfig): RenewalPolicy {
  return {
    afterSeconds: c.alertRefreshSeconds,
    urgentAfterSeconds: Math.max(0, c.alertTtlSeconds - 2 * c.intervalSeconds),
    batch: c.alertRefreshBatch,
  };
}

export class Evaluator {
  private readonly clock: Clock;
  private readonly sink: AlertSink;
  private readonly logger: EvaluatorLogger;
  private running: Promise<EvaluationReport> | undefined;
  /** The open findings as of the last run's write; dropped when a run fails, so the next one reloads them. */
  private carried: CarriedFindings | undefined;
  private queued: Promise<EvaluationReport> | undefined;

  constructor(private readonly o: EvaluatorOptions) {
    this.clock = o.clock ?? systemClock;
    this.sink = o.sink ?? alertmanagerClient(o.config.alertmanagerUrl, o.config.alertmanagerTimeoutMs);
    this.logger = o.logger ?? consoleLogger;
  }

  /**
   * One evaluation that starts no earlier than this call, so it sees every row stored before it. A run already in
   * flight may have read the tables before the caller's data arrived: callers arriving meanwhile share one run
   * queued after it. Runs never overlap.
   */
  runOnce(): Promise<EvaluationReport> {
    if (this.running === undefined) {
      this.running = this.evaluate().finally(() => {
        this.running = undefined;
      });
      return this.running;
    }
    this.queued ??= this.running
      .catch(() => undefined)
      .then(() => {
        this.queued = undefined;
        return this.runOnce();
      });
    return this.queued;
  }

  private async evaluate(): Promise<EvaluationReport> {
    try {
      return await this.evaluateOnce();
    } catch (err) {
      this.carried = undefined;
      throw err;
    }
  }

  private async evaluateOnce(): Promise<EvaluationReport> {
    const { ch, database, config: c } = this.o;
    const started = performance.now();
    const now = this.clock();
    // Read before anything else: every row stored before this instant is judged by this run or was by an earlier one.
    const [arrivedUntil, marks] = await Promise.all([clickhouseNow(ch), readWatermarks(ch, database, c.evaluatorName)]);
    const horizon = addSeconds(now, -c.findingActiveSeconds);
    // The first run judges the whole active horizon (from the watermark after a long outage); later runs judge
    // only what arrived since the arrival watermark, and keep the other findings from stored state.
    const since =
      marks.watermark && addSeconds(marks.watermark, -c.latenessSeconds) < horizon
        ? addSeconds(marks.watermark, -c.latenessSeconds)
        : horizon;
    const arrivals = marks.arrival
      ? { since: addSeconds(marks.arrival, -c.arrivalSlackSeconds), until: arrivedUntil }
      : undefined;

    const detection = await detect({ ch, database, config: c, now, since, arrivals });

    const changes: StateChange[] = detection.warnings.flatMap((w) =>
      w.decision.transitions.map((t) => ({
        tenant: w.stats.tenant,
        code: w.stats.code,
        source: w.stats.source,
        from: t.from,
        to: t.to,
        due_at: null,
        by: EVALUATOR_ACTOR,
        at: now,
        reason: t.reason,
      })),
    );
    await recordStateChanges(ch, database, changes);

    // A range run (the first, or after an outage) judges from `since`: it reads that range's records afresh.
    if (!this.carried || !detection.judged) this.carried = await CarriedFindings.load(ch, database, c.tenant, since);
    const { judged, owners } = detection;
    const plan = reconcile({
      now,
      detected: detection.findings,
      stored: this.carried.records,
      // Incremental: only the mutations of the sessions that received data were judged; the range detectors
      // (rates, warnings) judge everything on every run.
      judged: judged ? (rec) => !MUTATION_KINDS.has(rec.finding.kind) || judged.judged(rec.finding) : undefined,
      relabel: (f) => withCurrentOwner(f, owners),
      findingActiveSeconds: c.findingActiveSeconds,
      pendingSeconds: c.pendingSeconds,
      renewal: renewalPolicy(c),
    });
    const alerts = planAlerts(plan, now, c.alertTtlSeconds);
    let sendError: string | null = null;
    try {
      await this.post(alerts);
    } catch (err) {
      sendError = (err as Error).message;
      this.logger.error('sending alerts failed; they are kept and re-sent on the next run', err);
    }
    const written = recordsAfterSend(plan, now, sendError === null);
    await writeRecords(ch, database, written);
    this.carried.update(written, addSeconds(now, -c.findingActiveSeconds));
    await writeWatermarks(ch, database, c.evaluatorName, { watermark: now, arrival: arrivedUntil }, now);

    const report: EvaluationReport = {
      at: now.toISOString(),
      durationMs: Math.round(performance.now() - started),
      since: since.toISOString(),
      arrivedSince: arrivals ? arrivals.since.toISOString() : null,
      judgedSessions: detection.judged ? detection.judged.size : null,
      found: plan.firing.length + plan.pending.length + plan.unchanged.length,
      firing: plan.firing.length + plan.unchanged.filter((r) => r.alert_status === 'firing').length,
      opened: plan.firing.filter((r) => r.alert_status !== 'firing').length,
      pending: plan.pending.length + plan.unchanged.filter((r) => r.alert_status !== 'firing').length,
      resolved: plan.resolving.length + plan.silent.filter((r) => r.resolved_at?.getTime() === now.getTime()).length,
      renewed: plan.renewed,
      unchanged: plan.unchanged.length,
      alertsSent: sendError === null ? alerts.length : 0,
      sendError,
      stateChanges: changes.length,
    };
    return report;
  }

  private async post(alerts: readonly PostableAlert[]): Promise<void> {
    for (let i = 0; i < alerts.length; i += POST_BATCH) await this.sink.post(alerts.slice(i, i + POST_BATCH));
  }

  /** Evaluates now and then every intervalSeconds until stop(); failures are logged, never thrown. */
  start(onReport?: (r: EvaluationReport) => void): Schedule {
    return startSchedule(
      async () => {
        const report = await this.runOnce();
        try {
          onReport?.(report);
        } catch (err) {
          this.logger.error('the report callback failed', err);
        }
      },
      {
        intervalMs: this.o.config.intervalSeconds * 1000,
        onError: (err) => this.logger.error('evaluation failed; retrying at the next interval', err),
      },
    );
  }
}
