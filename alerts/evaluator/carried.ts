/**
 * The findings an evaluator carries from run to run: loaded from the findings table once (the open ones and those
 * of the range being judged: findings/store.ts loadOpenAndRecent), then kept in step with what each run writes. A
 * run then looks stored state up by fingerprint instead of re-reading and re-parsing every open finding, so
 * findings that do not change cost nothing per run. ClickHouse stays the truth: a new evaluator loads it again, and
 * so does the run after one that failed (the evaluator drops its copy).
 */
import type { ClickHouseClient } from '../../platform/clickhouse.ts';
import { MUTATION_KINDS } from '../findings/finding.ts';
import { type FindingRecord, loadOpenAndRecent } from '../findings/store.ts';

export class CarriedFindings {
  private constructor(private readonly byFingerprint: Map<string, FindingRecord>) {}

  static async load(ch: ClickHouseClient, database: string, tenant: string, since: Date): Promise<CarriedFindings> {
    return new CarriedFindings(await loadOpenAndRecent(ch, database, tenant, since));
  }

  get records(): ReadonlyMap<string, FindingRecord> {
    return this.byFingerprint;
  }

  /**
   * What a run wrote (after the write succeeded). Resolved records are kept while a finding found again must find
   * its history (mutations of the active horizon, as loadOpenAndRecent keeps them), then dropped.
   */
  update(written: readonly FindingRecord[], horizon: Date): void {
    for (const rec of written) this.byFingerprint.set(rec.finding.fingerprint, rec);
    const before = horizon.getTime();
    for (const [fp, rec] of this.byFingerprint) {
      if (rec.resolved_at === null || rec.alert_status === 'firing') continue;
      if (!MUTATION_KINDS.has(rec.finding.kind) || Date.parse(rec.finding.event_time) < before) {
        this.byFingerprint.delete(fp);
      }
    }
  }
}
