/**
 * `tooltrail collector`: the OTLP/HTTP collector until SIGINT/SIGTERM (collector/README.md). The options are
 * declared here; what the command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import type { CollectorFlags } from './run.ts';

const run = () => import('./run.ts');

export function registerCollectorCommand(program: Command): void {
  program
    .command('collector')
    .description('run the OTLP/HTTP collector (POST /v1/traces on :4318) producing spans to Kafka')
    .option('-c, --config <file>', 'YAML/JSON configuration file (its `collector:` section)')
    .option('--host <address>', 'address to bind (default 127.0.0.1)')
    .option('--port <port>', 'port to listen on (default 4318)')
    .option('--no-auth', 'local development only: no tokens, one tenant, loopback bind only')
    .option('--topic <name>', 'Kafka topic (default otlp_spans)')
    .option('--sink <kafka|discard>', 'where spans go; discard drops them (benchmarks only)')
    .action(async (flags: CollectorFlags) => (await run()).collector(flags));
}
