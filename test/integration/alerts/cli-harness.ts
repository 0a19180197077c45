/** Runs the alerts commands in-process, as cli/main.ts registers them, capturing what a user would read. */
import { Command } from 'commander';
import { type Clock, systemClock } from '../../../alerts/clock.ts';
import { registerAlertsCommands } from '../../../cli/commands/alerts/command.ts';

export interface CliResult {
  out: string;
  err: string;
}

export async function runAlertsCli(
  args: string[],
  env: Record<string, string>,
  clock: Clock = systemClock,
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command('tooltrail')
    .exitOverride()
    .configureOutput({ writeOut: (s) => out.push(s), writeErr: (s) => err.push(s) });
  registerAlertsCommands(program, {
    out: (l) => out.push(`${l}\n`),
    err: (l) => err.push(`${l}\n`),
    env: { ...process.env, ...env },
    clock,
  });
  await program.parseAsync(['node', 'tooltrail', ...args]);
  return { out: out.join(''), err: err.join('') };
}
