// Child process of the crash tests: exactly what `tooltrail ingest` runs, configured through the environment.
import { runIngest } from '../../../cli/ingest.ts';

await runIngest({});
