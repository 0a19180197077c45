/**
 * The `tooltrail` commander program, built by a function so that it can also run in-process (the CLI fuzzer), and
 * the rule main.ts applies to an error that escapes it: a user's mistake prints one line, anything else is a bug.
 * Each command lives in `commands/<command>/`: `command.ts` declares it and its options, `run.ts` (loaded only when
 * the command runs) does it.
 */
import { Command, type OutputConfiguration } from 'commander';
import { ConfigError } from '../platform/config-error.ts';
import { ServiceError } from '../services/errors.ts';
import { registerAlertsCommands } from './commands/alerts/command.ts';
import { registerCheckpointCommands } from './commands/checkpoint/command.ts';
import { registerCollectorCommand } from './commands/collector/command.ts';
import { registerDeleteCommand } from './commands/delete/command.ts';
import { registerDlqCommands } from './commands/dlq/command.ts';
import { registerIngestCommand } from './commands/ingest/command.ts';
import { registerMcpProxyCommand } from './commands/mcp-proxy/command.ts';
import { registerMigrateCommand } from './commands/migrate/command.ts';
import { registerReconstructCommands } from './commands/reconstruct/command.ts';
import { registerServicesCommand } from './commands/services/command.ts';
import { registerStatusCommand } from './commands/status/command.ts';
import { registerUpCommand } from './commands/up/command.ts';

export interface ProgramOptions {
  /** Where commander writes usage errors and help (default stdout/stderr). */
  output?: OutputConfiguration;
  /** Throw commander's errors instead of exiting (set before the commands are added, so they inherit it). */
  exitOverride?: boolean;
}

export function buildProgram(options: ProgramOptions = {}): Command {
  const program = new Command('tooltrail')
    .description('Completeness contracts for AI-agent tool calls: collect, store, detect, page, reconstruct.')
    .version('0.1.0')
    .showHelpAfterError();
  if (options.output) program.configureOutput(options.output);
  if (options.exitOverride) program.exitOverride();
  registerUpCommand(program);
  registerServicesCommand(program);
  registerMigrateCommand(program);
  registerCollectorCommand(program);
  registerIngestCommand(program);
  registerDlqCommands(program);
  registerAlertsCommands(program);
  registerReconstructCommands(program);
  registerCheckpointCommands(program);
  registerDeleteCommand(program);
  registerStatusCommand(program);
  registerMcpProxyCommand(program);
  return program;
}

/** Network errors that mean a service is not running or not where the configuration says. */
const UNREACHABLE = ['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ECONNRESET', 'ETIMEDOUT', 'EAI_AGAIN'];

/** The one line printed for an error the user can fix; undefined for anything else (rethrown: a bug). */
export function userErrorLine(err: unknown): string | undefined {
  if (err instanceof ServiceError || err instanceof ConfigError) return `tooltrail: ${err.message}`;
  // A service down or a schema not created is the user's to fix, whichever command met it: say so in one line.
  const e = err as { code?: unknown; type?: unknown; message?: unknown } | null;
  if (typeof e?.code === 'string' && UNREACHABLE.includes(e.code)) {
    return `tooltrail: ${String(e.message)}: is the service running? (\`tooltrail services up\`, or check TOOLTRAIL_*_URL)`;
  }
  if (e?.type === 'UNKNOWN_DATABASE' || e?.type === 'UNKNOWN_TABLE') {
    return `tooltrail: ${String(e.message).trim().split('\n')[0]}: create the schema with \`tooltrail migrate\``;
  }
  return undefined;
}
