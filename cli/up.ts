import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { DEFAULT_PORT, TOKENS_ENV } from '../collector/endpoint.ts';
import type { parseTokenList } from '../platform/auth/tokens.ts';

export const DEFAULT_EVALUATE_EVERY_SECONDS = 10;

export interface UpFlags {
  kafka?: boolean;
  host: string;
  port: number;
  tokens?: string;
  tokensFile?: string;
  evaluateEvery: number;
  defaultTenant?: string;
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
    .action(async (flags: UpFlags) => {
      // Loaded when the command runs, so that `tooltrail --help` and the other commands do not pay for it.
      const { parseTokenList, TokenConfigError } = await import('../platform/auth/tokens.ts');
      const { schemaConfigFromEnv } = await import('../schema/config.ts');
      const { loadServicesConfig } = await import('../services/config.ts');
      const { defaultPagesFile, startStack } = await import('./stack/stack.ts');
      const services = loadServicesConfig();
      // Checked before anything starts: a bad token must not leave ClickHouse started and migrated behind it.
      let tokens: ReturnType<typeof parseTokenList>;
      try {
        const [tokenText, source] = flags.tokensFile
          ? [readFileSync(flags.tokensFile, 'utf8').replace(/\s*\n\s*/g, ','), '--tokens-file']
          : flags.tokens !== undefined
            ? [flags.tokens, '--tokens']
            : [process.env[TOKENS_ENV] ?? '', TOKENS_ENV];
        tokens = tokenText.trim() ? parseTokenList(tokenText, source) : [];
      } catch (err) {
        if (!(err instanceof TokenConfigError) && (err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
        console.error(`tooltrail up: ${(err as Error).message}`);
        process.exitCode = 2;
        return;
      }
      const { isValidTenant, TENANT_RULE } = await import('../contract/index.ts');
      if (flags.defaultTenant !== undefined && !isValidTenant(flags.defaultTenant)) {
        console.error(`tooltrail up: --default-tenant must be ${TENANT_RULE}`);
        process.exitCode = 2;
        return;
      }
      const log = (line: string) => console.log(line);
      if (tokens.length === 0)
        log(`collector    no tokens configured: running WITHOUT AUTH, loopback only (set --tokens or ${TOKENS_ENV})`);
      const stack = await startStack({
        services,
        schema: schemaConfigFromEnv(),
        mode: flags.kafka ? 'kafka' : 'direct',
        collector: { host: flags.host, port: flags.port, tokens },
        evaluateEverySeconds: flags.evaluateEvery,
        ...(flags.defaultTenant !== undefined ? { defaultTenant: flags.defaultTenant } : {}),
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
