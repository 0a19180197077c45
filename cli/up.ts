import type { Command } from 'commander';
import { DEFAULT_PORT, parseTokenList, TOKENS_ENV } from '../collector/config.ts';
import { schemaConfigFromEnv } from '../schema/config.ts';
import { loadServicesConfig } from '../services/config.ts';
import { defaultPagesFile, startStack } from './stack/stack.ts';

export const DEFAULT_EVALUATE_EVERY_SECONDS = 10;

export interface UpFlags {
  kafka?: boolean;
  host: string;
  port: number;
  tokens?: string;
  evaluateEvery: number;
}

export function registerUpCommand(program: Command): void {
  program
    .command('up')
    .description('run the whole pipeline until Ctrl-C: embedded ClickHouse, collector, writer, alert evaluator')
    .option('--kafka', 'go through Kafka and the ingest consumer (the local broker, or TOOLTRAIL_KAFKA_BROKERS)')
    .option('--host <host>', 'collector address', '127.0.0.1')
    .option('--port <port>', 'collector port', (v) => Number.parseInt(v, 10), DEFAULT_PORT)
    .option(
      '--tokens <list>',
      `collector bearer tokens "token=tenant,..." (or ${TOKENS_ENV}); none: no auth, loopback only`,
    )
    .option(
      '--evaluate-every <seconds>',
      'seconds between detector runs',
      (v) => Number.parseInt(v, 10),
      DEFAULT_EVALUATE_EVERY_SECONDS,
    )
    .action(async (flags: UpFlags) => {
      const services = loadServicesConfig();
      const tokenText = flags.tokens ?? process.env[TOKENS_ENV] ?? '';
      const tokens = tokenText ? parseTokenList(tokenText, flags.tokens ? '--tokens' : TOKENS_ENV) : [];
      const log = (line: string) => console.log(line);
      if (tokens.length === 0)
        log(`collector    no tokens configured: running WITHOUT AUTH, loopback only (set --tokens or ${TOKENS_ENV})`);
      const stack = await startStack({
        services,
        schema: schemaConfigFromEnv(),
        mode: flags.kafka ? 'kafka' : 'direct',
        collector: { host: flags.host, port: flags.port, tokens },
        evaluateEverySeconds: flags.evaluateEvery,
        pagesFile: defaultPagesFile(services),
        env: process.env,
        log,
      });
      log('tooltrail is up. Send OTLP traces to the collector; Ctrl-C stops everything.');
      await new Promise<void>((resolve) => {
        const onSignal = (sig: string) => {
          log(`\n${sig}: stopping (collector, ingest, last evaluation, clients, services we started)`);
          resolve();
        };
        process.once('SIGINT', () => onSignal('SIGINT'));
        process.once('SIGTERM', () => onSignal('SIGTERM'));
      });
      await stack.stop();
      log('stopped.');
    });
}
