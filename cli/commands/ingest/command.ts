/**
 * `tooltrail ingest`: Kafka (OTLP protobuf) -> ClickHouse, exactly once, until SIGTERM/SIGINT (ingest/README.md).
 * The options are declared here; what the command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import type { IngestFlags } from './run.ts';

const run = () => import('./run.ts');

const int = (v: string) => Number.parseInt(v, 10);

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
    .option(
      '--policy <file>',
      'tool policy file (YAML/JSON) for tool spans of other emitters: effect, resource, items, targets per tool (docs/emitters/; env TOOLTRAIL_INGEST_POLICY_FILE)',
    )
    .action(async (flags: IngestFlags) => (await run()).ingest(flags));
}
