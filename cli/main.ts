/**
 * The `tooltrail` command. Each command group lives in its own file and registers itself here; errors a user can
 * fix print as one line (cause and fix), never a stack trace.
 */
import { Command } from 'commander';
import { ConfigError } from '../services/config.ts';
import { ServiceError } from '../services/errors.ts';
import { registerAlertsCommands } from './alerts.ts';
import { registerCollectorCommand } from './collector.ts';
import { registerIngestCommand } from './ingest.ts';
import { registerMigrateCommand } from './migrate.ts';
import { registerReconstructCommands } from './reconstruct.ts';
import { registerServicesCommand } from './services.ts';
import { registerUpCommand } from './up.ts';

const program = new Command('tooltrail')
  .description('Completeness contracts for AI-agent tool calls: collect, store, detect, page, reconstruct.')
  .version('0.1.0')
  .showHelpAfterError();

registerUpCommand(program);
registerServicesCommand(program);
registerMigrateCommand(program);
registerCollectorCommand(program);
registerIngestCommand(program);
registerAlertsCommands(program);
registerReconstructCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof ServiceError || err instanceof ConfigError) {
    console.error(`tooltrail: ${err.message}`);
    process.exit(1);
  }
  throw err;
}
