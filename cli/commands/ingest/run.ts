/** What `tooltrail ingest` does (declared in command.ts, loaded when it runs). */
import { digestConfigFromEnv } from '../../../audit/config.ts';
import { createDigestRecorder } from '../../../audit/recorder.ts';
import { type IngestOverrides, loadIngestConfig } from '../../../ingest/config.ts';
import { startIngest } from '../../../ingest/service.ts';

export interface IngestFlags {
  topic?: string;
  group?: string;
  dlqTopic?: string;
  database?: string;
  batchMaxRows?: number;
  batchMaxBytes?: number;
  lingerMs?: number;
  defaultTenant?: string;
  metricsPort?: number;
  /** Commander's negatable `--no-audit-digests`: false when given, else true (then the environment decides). */
  auditDigests?: boolean;
  policy?: string;
}

/** `tooltrail ingest`: its flags over the environment's TOOLTRAIL_INGEST_* (ingest/config.ts). */
export function ingest(f: IngestFlags): Promise<void> {
  const overrides: IngestOverrides = {
    ...(f.topic !== undefined ? { topic: f.topic } : {}),
    ...(f.group !== undefined ? { groupId: f.group } : {}),
    ...(f.dlqTopic !== undefined ? { deadLetterTopic: f.dlqTopic } : {}),
    ...(f.database !== undefined ? { database: f.database } : {}),
    ...(f.batchMaxRows !== undefined ? { maxRows: f.batchMaxRows } : {}),
    ...(f.batchMaxBytes !== undefined ? { maxBytes: f.batchMaxBytes } : {}),
    ...(f.lingerMs !== undefined ? { lingerMs: f.lingerMs } : {}),
    ...(f.defaultTenant !== undefined ? { defaultTenant: f.defaultTenant } : {}),
    ...(f.metricsPort !== undefined ? { metricsPort: f.metricsPort } : {}),
    ...(f.auditDigests === false ? { auditDigests: false } : {}),
    ...(f.policy !== undefined ? { policyFile: f.policy } : {}),
  };
  return runIngest(overrides);
}

/**
 * Runs the ingest until SIGTERM/SIGINT (finishing the batch in flight) or a fatal consumer crash (exit 1). Also the
 * entry point of the kill -9 tests' child process, so they exercise exactly what the command runs.
 */
export async function runIngest(flags: IngestOverrides): Promise<void> {
  const config = loadIngestConfig(flags);
  const fromEnv = config.auditDigests ? digestConfigFromEnv() : undefined;
  // TOOLTRAIL_AUDIT_LOG=false turns the audit trail off too: the Merkle log is the whole record.
  const digestConfig = fromEnv?.log?.enabled === false ? undefined : fromEnv;
  // Same tamper evidence as direct mode: `tooltrail verify` checks rows against the log.
  const running = await startIngest(
    config,
    digestConfig
      ? { batchStored: (ch) => createDigestRecorder(ch, { database: config.clickhouse.database, ...digestConfig }) }
      : {},
  );
  if (!digestConfig) {
    console.error('tooltrail ingest: audit digests are OFF: `tooltrail verify` will report the rows stored as added');
  } else if (digestConfig.key && !digestConfig.log?.signer) {
    console.error(
      'tooltrail ingest: TOOLTRAIL_DIGEST_KEY signs nothing new (the Merkle log is the record, audit/README.md): set TOOLTRAIL_CHECKPOINT_KEY to sign its checkpoints',
    );
  }
  console.error(
    `tooltrail ingest: ${config.kafka.topic} (group ${config.kafka.groupId}) -> ClickHouse ${config.clickhouse.database}` +
      (running.metricsPort !== undefined ? `; metrics on :${running.metricsPort}/metrics` : ''),
  );
  let signalled = false;
  const shutdown = (signal: string) => {
    if (signalled) return;
    signalled = true;
    console.error(`tooltrail ingest: ${signal}: finishing the batch in flight`);
    // Exiting before the batch finished is safe (the restart replays it); waiting forever is not.
    setTimeout(() => {
      console.error('tooltrail ingest: shutdown grace period over, exiting');
      process.exit(1);
    }, config.shutdownGraceMs).unref();
    running.stop().then(
      () => process.exit(0),
      (err: Error) => {
        console.error(`tooltrail ingest: shutdown failed: ${err.message}`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
  try {
    await running.done;
  } catch (err) {
    console.error(`tooltrail ingest: consumer stopped: ${(err as Error).message}`);
    await running.stop().catch(() => {});
    process.exit(1);
  }
}
