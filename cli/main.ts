/**
 * The `tooltrail` command. Each command lives in its own folder, `commands/<command>/`, and registers itself
 * (program.ts); errors a user can fix print as one line (cause and fix), never a stack trace.
 */
import { buildProgram, userErrorLine } from './program.ts';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  const line = userErrorLine(err);
  if (line !== undefined) {
    console.error(line);
    process.exit(1);
  }
  throw err;
}
