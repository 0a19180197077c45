/** `npm run demo` [--kafka] [--no-color]: see run.ts. */
import { inspect, parseArgs } from 'node:util';
import { runDemo } from './run.ts';

const { values } = parseArgs({ options: { kafka: { type: 'boolean' }, 'no-color': { type: 'boolean' } } });
const color = !values['no-color'] && process.stdout.isTTY === true && !process.env.NO_COLOR;
try {
  await runDemo({ kafka: values.kafka ?? false, out: (l) => console.log(l), color });
} catch (err) {
  // Whatever was thrown is shown: a value that is not an Error once printed "demo failed: undefined".
  console.error(`demo failed: ${err instanceof Error ? err.message : inspect(err, { depth: 4 })}`);
  process.exitCode = 1;
}
