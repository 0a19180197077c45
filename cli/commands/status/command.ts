/**
 * `tooltrail status`: per tenant and reason, what the pipeline kept FLAGGED (the `tool_call_warnings` rows of the
 * pipeline codes, durable in ClickHouse) and what the collector REJECTED (never stored: asked of the collector's
 * `GET /v1/rejections`, which keeps the last hour), and the tools of other emitters of UNKNOWN effect (no tool policy
 * names them), since `--since`, each with an example span id. The read scope
 * is the one of `findings` (platform/auth/read-scope.ts); the collector's answer is cut to it as well. The options
 * are declared here; what the command does loads when it runs (run.ts).
 */
import type { Command } from 'commander';
import { DEFAULT_PORT } from '../../../collector/endpoint.ts';
import { API_TOKEN_ENV } from '../../../platform/auth/token-env.ts';
import { COLLECTOR_URL_ENV } from './env.ts';
import type { StatusFlags, StatusIo } from './run.ts';

const defaultIo: StatusIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
  now: () => new Date(),
};

const run = () => import('./run.ts');

export function registerStatusCommand(program: Command, io: StatusIo = defaultIo): void {
  program
    .command('status')
    .description(
      'what senders got wrong: spans kept FLAGGED or REJECTED, tools of UNKNOWN effect, per tenant, with an example span',
    )
    .option('--since <duration>', 'this last period, at most 1h (the collector keeps one hour)', '1h')
    .option('--token <token>', `read as this API token's tenant only (or ${API_TOKEN_ENV})`)
    .option('--tenant <tenant>', 'only this tenant')
    .option('--all-tenants', 'operator: every tenant')
    .option(
      '--collector <url>',
      `the collector to ask for rejections (or ${COLLECTOR_URL_ENV}; default http://127.0.0.1:${DEFAULT_PORT})`,
    )
    .option('--json', 'print the report as JSON')
    .action(async (flags: StatusFlags) => (await run()).statusAction(flags, io));
}
