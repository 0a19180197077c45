/** `npm run demo` [--kafka] [--no-color]: see run.ts. */
import { parseArgs } from 'node:util';
import { runDemo } from './run.ts';

const { values } = parseArgs({ options: { kafka: { type: 'boolean' }, 'no-color': { type: 'boolean' } } });
const color = !values['no-color'] && process.stdout.isTTY === true && !process.env.NO_COLOR;
try {
  await runDemo({ kafka: values.kafka ?? false, out: (l) => console.log(l), color });
} catch (err) {
  console.error(`demo failed: ${(err as Error).message}`);
  process.exitCode = 1;
}
