/**
 * Runs the alerts commands as their own process (so a test can kill -9 an evaluator), registered exactly as
 * cli/main.ts registers them: `node --import tsx test/integration/alerts/run-cli.ts alerts --once`.
 */
import { Command } from 'commander';
import { registerAlertsCommands } from '../../../cli/commands/alerts/command.ts';

const program = new Command('tooltrail');
registerAlertsCommands(program);
await program.parseAsync(process.argv);
