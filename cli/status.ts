/**
 * `tooltrail status`: per tenant and reason, what the pipeline kept FLAGGED (the `tool_call_warnings` rows of the
 * pipeline codes, durable in ClickHouse) and what the collector REJECTED (never stored: asked of the collector's
 * `GET /v1/rejections`, which keeps the last hour), since `--since`, each with an example span id. The read scope
 * is the one of `findings` (platform/auth/read-scope.ts); the collector's answer is cut to it as well. The options
 * are declared here; what the command does loads when it runs (status-run.ts).
 */
import type { Command } from 'commander';
import { DEFAULT_PORT } from '../collector/endpoint.ts';
import type { RejectionReport } from '../collector/rejection-window.ts';
import { API_TOKEN_ENV } from '../platform/auth/token-env.ts';

export const COLLECTOR_URL_ENV = 'TOOLTRAIL_COLLECTOR_URL';
/** A sender's collector token: the collector then answers for that tenant only. */
export const COLLECTOR_TOKEN_ENV = 'TOOLTRAIL_COLLECTOR_TOKEN';

export interface StatusIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  now(): Date;
}

const defaultIo: StatusIo = {
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
  now: () => new Date(),
};

export interface StatusFlags {
  since?: string;
  json?: boolean;
  token?: string;
  tenant?: string;
  allTenants?: boolean;
  collector?: string;
}

export interface FlaggedRow {
  tenant: string;
  reason: string;
  attribute: string;
  spans: number;
  example_span_id: string;
  message: string;
  last_seen: string;
}

/** What the collector's /v1/rejections answers: its own report type (collector/rejection-window.ts). */
export type RejectedRow = RejectionReport;

export interface StatusReport {
  since: string;
  until: string;
  scope: { tenant: string } | { tenants: 'all' };
  flagged: FlaggedRow[];
  /** null when the collector could not be asked (`collector.error` says why). */
  rejected: RejectedRow[] | null;
  collector: { url: string; error?: string };
}

const run = () => import('./status-run.ts');

export function registerStatusCommand(program: Command, io: StatusIo = defaultIo): void {
  program
    .command('status')
    .description('what senders got wrong: spans kept FLAGGED or REJECTED, per tenant and reason, with an example span')
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
