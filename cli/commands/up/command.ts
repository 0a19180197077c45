/**
 * `tooltrail up`: the whole pipeline in this process until Ctrl-C (cli/stack/stack.ts). The options are declared
 * here; what the command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import { DEFAULT_PORT, TOKENS_ENV } from '../../../collector/endpoint.ts';
import type { UpFlags } from './run.ts';

export const DEFAULT_EVALUATE_EVERY_SECONDS = 10;

const run = () => import('./run.ts');

export function registerUpCommand(program: Command): void {
  program
    .command('up')
    .description('run the whole pipeline until Ctrl-C: embedded ClickHouse, collector, writer, alert evaluator')
    .option('--kafka', 'go through Kafka and the ingest consumer (the local broker, or TOOLTRAIL_KAFKA_BROKERS)')
    .option('--host <host>', 'collector address', '127.0.0.1')
    .option('--port <port>', 'collector port', (v) => Number.parseInt(v, 10), DEFAULT_PORT)
    .option(
      '--tokens <list>',
      `collector bearer tokens "token=tenant,..." (visible in ps: prefer ${TOKENS_ENV} or --tokens-file); none: no auth, loopback only`,
    )
    .option(
      '--evaluate-every <seconds>',
      'seconds between detector runs',
      (v) => Number.parseInt(v, 10),
      DEFAULT_EVALUATE_EVERY_SECONDS,
    )
    .option('--tokens-file <path>', 'read the collector tokens ("token=tenant,...", commas or new lines) from a file')
    .option(
      '--default-tenant <name>',
      "with --kafka: tenant for spans in Kafka without tooltrail.tenant (env TOOLTRAIL_INGEST_DEFAULT_TENANT; default: the collector's no-auth tenant without tokens, else none: dead-lettered)",
    )
    .option(
      '--policy <file>',
      'tool policy file (YAML/JSON) for tool spans of other emitters: effect, resource, items, targets per tool (docs/emitters/; env TOOLTRAIL_INGEST_POLICY_FILE)',
    )
    .action(async (flags: UpFlags) => (await run()).up(flags));
}
