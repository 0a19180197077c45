// Child process of the crash tests: exactly what `tooltrail ingest` runs, configured through the environment.
import { runIngest } from '../../../cli/commands/ingest/run.ts';

await runIngest({});
