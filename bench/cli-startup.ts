/**
 * How long `tooltrail --help` takes to print, against an empty Node process (`node -e 0`) measured in the same run,
 * alternated one for one so the machine's load falls on both alike. Wall time per process, medians over the rounds.
 * Runs bin/tooltrail.js as users do: the compiled dist/ when it is current (npm ci builds it), else the sources.
 *
 *   node --import tsx bench/cli-startup.ts [--rounds 21]
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { printBenchReport, spread } from './support/report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_RATIO = 3;
const { values } = parseArgs({ options: { rounds: { type: 'string', default: '21' } } });
const rounds = Number(values.rounds);

/** Wall milliseconds of one process run to its exit; a failing run fails the bench. */
function wallMs(args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  return ms;
}

const help = [join(ROOT, 'bin/tooltrail.js'), '--help'];
const empty = ['-e', '0'];
wallMs(help); // The first run warms the file cache; not counted.
const helpMs: number[] = [];
const emptyMs: number[] = [];
for (let i = 0; i < rounds; i++) {
  helpMs.push(wallMs(help));
  emptyMs.push(wallMs(empty));
}
const h = spread(helpMs);
const e = spread(emptyMs);
const ratio = h.value / e.value;
console.log(
  `tooltrail --help: median ${h.value.toFixed(0)} ms (${h.min.toFixed(0)}-${h.max.toFixed(0)}), ${rounds} runs`,
);
console.log(`node -e 0:        median ${e.value.toFixed(0)} ms (${e.min.toFixed(0)}-${e.max.toFixed(0)}), same run`);
console.log(`ratio ${ratio.toFixed(2)}x (target <= ${TARGET_RATIO}x), Node ${process.version}`);
printBenchReport({
  bench: 'cli-startup',
  figures: [
    {
      name: 'tooltrail --help wall time',
      unit: 'ms',
      ...h,
      baseline: { name: 'node -e 0', value: e.value },
      ratio,
      target: `≤ ${TARGET_RATIO}× node -e 0`,
      met: ratio <= TARGET_RATIO,
    },
  ],
});
