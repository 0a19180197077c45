/**
 * `npm run fuzz -- [--cases N] [--seed S] [--only target[,target]]`: runs each fuzz target for N cases from a seed
 * and prints, per target, the cases tried, the crashes, the 5xx answered to client errors and the other
 * violations (first examples included, to replay with the same seed). Exits 1 on any violation.
 */
import { parseArgs } from 'node:util';
import { clip, type FuzzTarget, type TargetReport } from './report.ts';
import { targetSeed } from './rng.ts';
import { otlpTarget, otlpThreadsTarget, probesTarget } from './targets/collector.ts';
import { socketsTarget } from './targets/collector-sockets.ts';

async function loadTargets(): Promise<FuzzTarget[]> {
  const { apiTarget } = await import('./targets/api.ts');
  const { cliTarget, cliDatabaseTarget } = await import('./targets/cli.ts');
  const { digestsTarget } = await import('./targets/digests.ts');
  return [
    otlpTarget,
    otlpThreadsTarget,
    probesTarget,
    socketsTarget,
    apiTarget,
    cliTarget,
    cliDatabaseTarget,
    digestsTarget,
  ];
}

function print(r: TargetReport, ms: number): void {
  const c = r.counts;
  const outcomes = [...r.outcomes]
    .sort((a, b) => b[1] - a[1])
    .map(([k, n]) => `${k}:${n}`)
    .join(' ');
  console.log(
    `${r.target.padEnd(17)} cases ${String(r.cases).padStart(7)}  crashes ${c.crash}  5xx-for-client-errors ${c.server_error} (+${c.known_open} known open)  spans-lost ${c.span_lost}  stack-traces ${c.stack_trace}  not-one-line ${c.not_one_line}  hangs ${c.hang}  disagreements ${c.disagreement}  (${(ms / 1000).toFixed(1)} s; ${outcomes})`,
  );
  for (const v of r.examples) console.log(`  ${v.kind} #${v.index}: ${clip(v.input, 400)} -> ${clip(v.answer, 400)}`);
}

const { values } = parseArgs({
  options: {
    cases: { type: 'string', default: '1000' },
    seed: { type: 'string', default: '1' },
    only: { type: 'string' },
  },
});
const cases = Number(values.cases);
const seed = Number(values.seed);
if (!Number.isInteger(cases) || cases < 1) throw new Error('--cases must be a positive integer');
if (!Number.isInteger(seed)) throw new Error('--seed must be an integer');
const all = await loadTargets();
const only = values.only?.split(',').map((s) => s.trim());
const unknown = only?.filter((o) => !all.some((t) => t.name === o)) ?? [];
if (unknown.length) throw new Error(`unknown target ${unknown.join(', ')}: use ${all.map((t) => t.name).join(', ')}`);
let violations = 0;
console.log(`fuzz: seed ${seed}, ${cases} cases per target`);
for (const target of all.filter((t) => !only || only.includes(t.name))) {
  const t0 = performance.now();
  const report = await target.run(cases, targetSeed(seed, target.name));
  print(report, performance.now() - t0);
  violations += report.violations;
}
console.log(violations === 0 ? 'fuzz: no violation' : `fuzz: ${violations} violation(s)`);
process.exitCode = violations === 0 ? 0 : 1;
