/**
 * How long the CLI takes to start: `tooltrail --help` and a small command that loads its run module and exits
 * (`tooltrail checkpoint keygen`, no service), against an empty Node process (`node -e 0`) measured in the same run,
 * alternated one for one so the machine's load falls on all alike. Wall time per process, medians over the rounds.
 * Runs bin/tooltrail.js as users do: the compiled dist/ when it is current (npm ci builds it), else the sources.
 * `--against DIR` alternates another checkout's CLI too (its dist/ built), for an A/B of a change: that checkout is
 * the baseline of each command line's second figure.
 *
 *   node --import tsx bench/cli-startup.ts [--rounds 21] [--against /path/to/other/checkout]
 */
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BenchFigure, printBenchReport, spread } from './support/report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TARGET_RATIO = 3;
const { values } = parseArgs({
  options: { rounds: { type: 'string', default: '21' }, against: { type: 'string' } },
});
const rounds = Number(values.rounds);
const against = values.against === undefined ? undefined : resolve(values.against);

/** Wall milliseconds of one process run to its exit; a failing run fails the bench. */
function wallMs(cwd: string, args: string[]): number {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.status !== 0) throw new Error(`node ${args.join(' ')} (in ${cwd}) exited ${r.status}: ${r.stderr}`);
  return ms;
}

const LINES = [
  { name: 'tooltrail --help', args: ['--help'], target: true },
  { name: 'tooltrail checkpoint keygen', args: ['checkpoint', 'keygen', '--name', 'bench'], target: false },
];
const trees = [ROOT, ...(against ? [against] : [])];
const runs = LINES.flatMap((line) =>
  trees.map((tree) => ({ line, tree, args: [join(tree, 'bin/tooltrail.js'), ...line.args], ms: [] as number[] })),
);
const empty: number[] = [];
for (const r of runs) wallMs(r.tree, r.args); // The first run warms the file cache; not counted.
for (let i = 0; i < rounds; i++) {
  for (const r of runs) r.ms.push(wallMs(r.tree, r.args));
  empty.push(wallMs(ROOT, ['-e', '0']));
}
const e = spread(empty);
const fmt = (s: ReturnType<typeof spread>) =>
  `median ${s.value.toFixed(0)} ms (${s.min.toFixed(0)}-${s.max.toFixed(0)})`;
const figures: BenchFigure[] = [];
for (const line of LINES) {
  const [mine, theirs] = runs.filter((r) => r.line === line).map((r) => spread(r.ms));
  if (!mine) continue;
  const ratio = mine.value / e.value;
  console.log(`${line.name.padEnd(28)} ${fmt(mine)}, ${ratio.toFixed(2)}x node -e 0, ${rounds} runs`);
  figures.push({
    name: `${line.name} wall time`,
    unit: 'ms',
    ...mine,
    baseline: { name: 'node -e 0', value: e.value },
    ratio,
    ...(line.target ? { target: `≤ ${TARGET_RATIO}× node -e 0`, met: ratio <= TARGET_RATIO } : {}),
  });
  if (theirs && against) {
    const ab = mine.value / theirs.value;
    console.log(`${`  ${against}`.padEnd(28)} ${fmt(theirs)}; this checkout / that one ${ab.toFixed(3)}x`);
    figures.push({
      name: `${line.name} wall time against ${against}`,
      unit: 'ms',
      ...mine,
      baseline: { name: `${line.name} of ${against}`, value: theirs.value },
      ratio: ab,
    });
  }
}
console.log(`${'node -e 0'.padEnd(28)} ${fmt(e)}, same run; target --help ≤ ${TARGET_RATIO}x, Node ${process.version}`);
printBenchReport({ bench: 'cli-startup', figures });
