/**
 * The assembly of the audit log's alerts: the alerts stage's rules (alerts/audit-log/) fed with the audit stage's
 * consistency check (audit/log/monitor.ts) over the stored checkpoints and the witnesses' copies (the directory
 * and the Kafka topic of TOOLTRAIL_WITNESS_*). Without a trusted key the consistency check cannot read signatures:
 * it is skipped, and said once, after the first run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { AuditAlertsConfig } from '../../../alerts/audit-log/config.ts';
import { type LogConsistencyProblem, watchAuditLog } from '../../../alerts/audit-log/rules.ts';
import type { AlertSink, PostableAlert } from '../../../alerts/index.ts';
import { logConfigFromEnv, verifiersFrom } from '../../../audit/log/config.ts';
import { latestWitnessed } from '../../../audit/log/kafka-witness.ts';
import { checkNewestCheckpoints } from '../../../audit/log/monitor.ts';
import { LogStore } from '../../../audit/log/store.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';

export interface AuditWatchOptions {
  ch: ClickHouseClient;
  database: string;
  tenant: string;
  sink: AlertSink;
  alertTtlSeconds: number;
  config: AuditAlertsConfig;
  env: NodeJS.ProcessEnv;
  clock: () => Date;
  warn: (line: string) => void;
}

/** The newest note of each log a file witness holds (`<dir>/<tenant>/<log>/latest`). */
function fromDirectory(dir: string): string[] {
  const notes: string[] = [];
  for (const tenant of safeList(dir))
    for (const log of safeList(join(dir, tenant))) {
      try {
        notes.push(readFileSync(join(dir, tenant, log, 'latest'), 'utf8'));
      } catch {
        // a log directory without `latest` yet
      }
    }
  return notes;
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** One run per call: the alerts that hold now, posted. */
export function auditWatch(o: AuditWatchOptions): () => Promise<PostableAlert[]> {
  const verifiers = verifiersFrom([], o.env);
  const log = logConfigFromEnv(o.env);
  let told = verifiers.length > 0;
  const consistency = async (): Promise<LogConsistencyProblem[]> => {
    if (verifiers.length === 0) return [];
    const witnessed = [
      ...(log.witnessDir ? fromDirectory(log.witnessDir) : []),
      ...(log.witnessKafka ? [...(await latestWitnessed(log.witnessKafka)).values()].map((c) => c.note) : []),
    ];
    return checkNewestCheckpoints(new LogStore(o.ch, o.database), verifiers, {
      ...(o.tenant ? { tenant: o.tenant } : {}),
      witnessed,
    });
  };
  return async () => {
    const sent = await watchAuditLog({
      ch: o.ch,
      database: o.database,
      tenant: o.tenant,
      now: o.clock(),
      stallSeconds: o.config.stallSeconds,
      alertTtlSeconds: o.alertTtlSeconds,
      sink: o.sink,
      consistency,
    });
    // Said after a run that worked, once: a run that fails says why instead.
    if (!told)
      o.warn(
        'tooltrail alerts: audit log consistency is not watched (no TOOLTRAIL_CHECKPOINT_VERIFIERS); stalls and leaf gaps are',
      );
    told = true;
    return sent;
  };
}
