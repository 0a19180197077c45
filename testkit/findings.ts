/**
 * A finding the detectors made of stored spans, recorded in `findings` as the evaluator first stores it (open, no
 * alert sent yet): what a reconstruction by fingerprint reads.
 */
import assert from 'node:assert/strict';
import { defaultAlertsConfig } from '../alerts/config.ts';
import { detect } from '../alerts/findings/detect.ts';
import type { Finding } from '../alerts/findings/finding.ts';
import { writeRecords } from '../alerts/findings/store.ts';
import { services, type TestDatabase } from './services.ts';

export interface StoredFindingOptions {
  /** The detectors' run: mutations started in [since, now). */
  now: Date;
  since: Date;
  /** Detect in this tenant only (default: every tenant). */
  tenant?: string;
  /** Which of the findings to store; the helper fails the test when none matches. */
  pick: (f: Finding) => boolean;
}

export async function storeDetectedFinding(db: TestDatabase, o: StoredFindingOptions): Promise<Finding> {
  const config = defaultAlertsConfig(services.alertmanager.url);
  const found = await detect({
    ch: db.ch,
    database: db.database,
    config: o.tenant === undefined ? config : { ...config, tenant: o.tenant },
    now: o.now,
    since: o.since,
  });
  const finding = found.findings.find(o.pick);
  assert.ok(finding, `no finding picked among the detectors': ${found.findings.map((f) => f.kind).join(', ')}`);
  await writeRecords(db.ch, db.database, [
    {
      finding,
      first_seen: o.now,
      last_seen: o.now,
      resolved_at: null,
      resolution: '',
      alert_status: 'not_sent',
      last_sent_at: null,
    },
  ]);
  return finding;
}
