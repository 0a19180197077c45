import type { Command } from 'commander';
import type { IngestOverrides } from '../ingest/config.ts';

interface IngestFlags {
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
}

const int = (v: string) => Number.parseInt(v, 10);

/** `tooltrail ingest`: Kafka (OTLP protobuf) -> ClickHouse, exactly once. Runs until SIGTERM/SIGINT. */
export function registerIngestCommand(program: Command): void {
  program
    .command('ingest')
    .description('consume OTLP spans from Kafka and store them in ClickHouse exactly once (runs until SIGTERM)')
    .option('--topic <name>', 'source topic (env TOOLTRAIL_INGEST_TOPIC; default otlp_spans)')
    .option('--group <id>', 'consumer group (env TOOLTRAIL_INGEST_GROUP_ID; default tooltrail-ingest)')
    .option('--dlq-topic <name>', 'dead-letter topic (env TOOLTRAIL_INGEST_DLQ_TOPIC; default otlp_spans_dlq)')
    .option('--database <name>', 'ClickHouse database (env TOOLTRAIL_CLICKHOUSE_DATABASE; default tooltrail)')
    .option('--batch-max-rows <n>', 'rows per insert at most (env TOOLTRAIL_INGEST_BATCH_MAX_ROWS)', int)
    .option('--batch-max-bytes <n>', 'message bytes per batch at most (env TOOLTRAIL_INGEST_BATCH_MAX_BYTES)', int)
    .option('--linger-ms <n>', 'how long a fetch may wait to fill up (env TOOLTRAIL_INGEST_LINGER_MS)', int)
    .option(
      '--default-tenant <name>',
      'tenant for spans without tooltrail.tenant (env TOOLTRAIL_INGEST_DEFAULT_TENANT)',
    )
    .option('--metrics-port <port>', 'serve Prometheus metrics on /metrics (env TOOLTRAIL_INGEST_METRICS_PORT)', int)
    .option(
      '--no-audit-digests',
      'do not record tamper-evidence digests; verify then reports these rows as added (env TOOLTRAIL_INGEST_AUDIT_DIGESTS=false)',
    )
    .action(async (f: IngestFlags) => {
      const flags: IngestOverrides = {
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
      };
      await runIngest(flags);
    });
}

/**
 * Runs the ingest until SIGTERM/SIGINT (finishing the batch in flight) or a fatal consumer crash (exit 1). Also the
 * entry point of the kill -9 tests' child process, so they exercise exactly what the command runs.
 */
export async function runIngest(flags: IngestOverrides): Promise<void> {
  // Loaded when the command runs, so that `tooltrail --help` and the other commands do not pay for it.
  const { digestConfigFromEnv } = await import('../audit/config.ts');
  const { createDigestRecorder } = await import('../audit/recorder.ts');
  const { loadIngestConfig } = await import('../ingest/config.ts');
  const { startIngest } = await import('../ingest/service.ts');
  const config = loadIngestConfig(flags);
  const fromEnv = config.auditDigests ? digestConfigFromEnv() : undefined;
  // TOOLTRAIL_AUDIT_LOG=false turns the audit trail off too: the Merkle log is the whole record.
  const digestConfig = fromEnv?.log?.enabled === false ? undefined : fromEnv;
  // Same tamper evidence as direct mode: `tooltrail verify` checks rows against the log.
  const ingest = await startIngest(
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
      (ingest.metricsPort !== undefined ? `; metrics on :${ingest.metricsPort}/metrics` : ''),
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
    ingest.stop().then(
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
    await ingest.done;
  } catch (err) {
    console.error(`tooltrail ingest: consumer stopped: ${(err as Error).message}`);
    await ingest.stop().catch(() => {});
    process.exit(1);
  }
}
