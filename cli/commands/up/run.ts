/** What `tooltrail up` does (declared in command.ts, loaded when it runs). */
import { readFileSync } from 'node:fs';
import { TOKENS_ENV } from '../../../collector/endpoint.ts';
import { isValidTenant, PolicyError, TENANT_RULE } from '../../../contract/index.ts';
import { parseTokenList, TokenConfigError } from '../../../platform/auth/tokens.ts';
import { loadPolicyFile } from '../../../platform/tool-policy-file.ts';
import { schemaConfigFromEnv } from '../../../schema/config.ts';
import { loadServicesConfig } from '../../../services/config.ts';
import { defaultPagesFile, startStack } from '../../stack/stack.ts';

export interface UpFlags {
  kafka?: boolean;
  host: string;
  port: number;
  tokens?: string;
  tokensFile?: string;
  evaluateEvery: number;
  defaultTenant?: string;
  policy?: string;
}

/** `tooltrail up`: until SIGINT or SIGTERM; a bad token or tenant is refused (exit code 2) before anything starts. */
export async function up(flags: UpFlags): Promise<void> {
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
  if (flags.defaultTenant !== undefined && !isValidTenant(flags.defaultTenant)) {
    console.error(`tooltrail up: --default-tenant must be ${TENANT_RULE}`);
    process.exitCode = 2;
    return;
  }
  if (flags.policy !== undefined) {
    try {
      loadPolicyFile(flags.policy);
    } catch (err) {
      if (!(err instanceof PolicyError)) throw err;
      console.error(`tooltrail up: --policy: ${err.message}`);
      process.exitCode = 2;
      return;
    }
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
    ...(flags.policy !== undefined ? { policyFile: flags.policy } : {}),
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
}
