#!/usr/bin/env node
// The README's test command. Starts the local services (idempotent; skipped with --no-services or when they are
// configured as external), runs every *.test.ts under the given folders (default: test/) with node's test runner,
// and closes with one node summary for the whole run plus one plain line: "N passed, N failed, N skipped". Every
// test is counted or the run fails: a file that ends before its summary or before reporting a test it announced is
// named and fails it (scripts/test-tally.js). The files run in lanes side by side (scripts/test-lanes.js): the
// files sharing the local services one at a time (TOOLTRAIL_TEST_CONCURRENCY, default 1), and beside them the unit
// files (TOOLTRAIL_TEST_UNIT_CONCURRENCY, default 2); the self-contained ones (their own services) go to whichever
// lane is free, one file at a time each.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { planLanes, readHead } from './test-lanes.js';
import { LaneOutput, SummaryFilter, summaryLines } from './test-output.js';
import { TALLY_MARKER, uncountedFiles } from './test-tally.js';

// Node 22 is the first whose runner closes each file with its own summary, which the tally needs.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`tests: need Node.js 22 or newer, this is ${process.version} (CI's are in .ci/node: see .ci/run)`);
  process.exit(1);
}

// The files that took longest, printed before the summary: where CI's time goes.
const SLOWEST_SHOWN = 15;

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const noServices = args.includes('--no-services');
const roots = args.filter((a) => !a.startsWith('--'));
// --exclude=<file> (repeatable) leaves one file out, e.g. the static checks when only the Node version changed.
const excluded = new Set(args.filter((a) => a.startsWith('--exclude=')).map((a) => a.slice('--exclude='.length)));

function findTests(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) continue;
    if (statSync(full).isDirectory()) out.push(...findTests(full));
    else if (name.endsWith('.test.ts')) out.push(full);
  }
  return out;
}

const files = (roots.length ? roots : ['test'])
  .flatMap((r) => {
    const p = join(root, r);
    return statSync(p).isDirectory() ? findTests(p) : [p];
  })
  .map((f) => relative(root, f))
  .filter((f) => !excluded.has(f))
  .sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

let lanes;
let pool;
try {
  ({ lanes, pool } = planLanes(files, (f) => readHead(join(root, f))));
} catch (err) {
  console.error(`tests: ${err.message}`);
  process.exit(1);
}

if (!noServices) {
  const up = spawnSync(process.execPath, [join(root, 'bin/tooltrail.js'), 'services', 'up'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (up.status !== 0) {
    console.error('tests need the local services: `tooltrail services up` failed (see above)');
    process.exit(up.status ?? 1);
  }
}

// The spec reporter writes to a pipe here: it keeps its colours when this run's own output is a terminal.
const env = { ...process.env, TOOLTRAIL_TEST_RUN: '1', ...(process.stdout.isTTY ? { FORCE_COLOR: '1' } : {}) };
const started = Date.now();
const output = new LaneOutput((line) => process.stdout.write(`${line}\n`));
const tallies = [];
const summaries = [];
const laneTimes = [];
let failedProcesses = 0;
const children = new Set();
let stopped;

// Stopped (Ctrl-C, a CI time limit): what the waiting lanes hold is shown, the runners get the signal, no stage starts.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    stopped = signal;
    output.flush();
    for (const c of children) c.kill(signal);
  });
}

/** One `node --test` process over a stage's files; resolves when it closed, its tally and summary kept. */
function runStage(stage, write) {
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      // A file that leaves a handle open fails, naming it, instead of holding the run (scripts/test-open-handles.js).
      '--import',
      join(root, 'scripts/test-open-handles.js'),
      '--test',
      `--test-concurrency=${stage.concurrency}`,
      '--test-reporter=spec',
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(root, 'scripts/test-tally.js')}`,
      '--test-reporter-destination=stderr',
      ...stage.files,
    ],
    { cwd: root, stdio: ['inherit', 'pipe', 'pipe'], env },
  );
  children.add(child);
  const filter = new SummaryFilter();
  createInterface({ input: child.stdout }).on('line', (line) => {
    for (const l of filter.push(line)) write(l);
  });
  // stderr carries the runner's own messages and, last, the tally's marker line: everything but that line passes on.
  let tally;
  createInterface({ input: child.stderr }).on('line', (line) => {
    if (line.startsWith(TALLY_MARKER)) tally = JSON.parse(line.slice(TALLY_MARKER.length));
    else process.stderr.write(`${line}\n`);
  });
  return new Promise((resolveStage) => {
    child.on('close', (code) => {
      children.delete(child);
      const { lines, summary } = filter.end();
      for (const l of lines) write(l);
      if (summary) summaries.push(summary);
      if (tally === undefined) {
        const which = stage.kind === 'self-contained' ? stage.files[0] : `the ${stage.kind} files`;
        console.error(`tests: the runner of ${which} ended without its tally: none of them is counted`);
      } else tallies.push(tally);
      if (code !== 0 || tally === undefined) failedProcesses++;
      resolveStage();
    });
  });
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
// One runner process alone needs no heading.
const processes = lanes.reduce((n, l) => n + l.stages.length, 0) + pool.length;

async function runLane(lane) {
  const out = output.lane();
  const t0 = Date.now();
  const times = [];
  for (const stage of lane.stages) {
    if (stopped) break;
    if (processes > 1) out.line(`▷ ${stage.files.length} ${stage.kind} files, ${stage.concurrency} at a time`);
    const s0 = Date.now();
    await runStage(stage, out.line);
    times.push(`${stage.kind} ${seconds(Date.now() - s0)}`);
  }
  // Then the self-contained files, the next one free each time, until none is left.
  const own = { ms: 0, files: 0 };
  while (pool.length > 0 && !stopped) {
    const file = pool.shift();
    if (processes > 1) out.line(`▷ self-contained ${file}`);
    const s0 = Date.now();
    await runStage({ kind: 'self-contained', files: [file], concurrency: 1 }, out.line);
    own.ms += Date.now() - s0;
    own.files++;
  }
  if (own.files > 0) times.push(`self-contained ${seconds(own.ms)}: ${own.files} files`);
  laneTimes.push(`ℹ lane ${lane.name}: ${seconds(Date.now() - t0)} (${times.join(', ')})`);
  out.end();
}

await Promise.all(lanes.map(runLane));

const tally = { files: Object.assign({}, ...tallies.map((t) => t.files)) };
const problems = uncountedFiles(
  tally,
  files.map((f) => join(root, f)),
);
for (const { file, problem } of problems) console.error(`tests: ${relative(root, file)}: ${problem}`);
if (lanes.length > 1) for (const line of laneTimes) console.log(line);
const slowest = Object.entries(tally.files)
  .filter(([, f]) => f.durationMs !== null)
  .sort(([, a], [, b]) => b.durationMs - a.durationMs)
  .slice(0, SLOWEST_SHOWN);
for (const [file, f] of slowest) console.log(`ℹ slow ${seconds(f.durationMs)} ${relative(root, file)}`);
for (const line of summaryLines(summaries, Date.now() - started)) console.log(line);
const all = Object.values(tally.files);
const sum = (k) => all.reduce((n, f) => n + f[k], 0);
console.log(`${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
if (stopped) console.log(`tests: stopped by ${stopped}: the run fails`);
if (problems.length > 0) console.log(`${problems.length} files not fully counted (above): the run fails`);
// Exit once stdout has taken every line: a pipe a child left non-blocking queues writes, and exit drops the queue.
const code = problems.length > 0 || failedProcesses > 0 || stopped ? 1 : 0;
process.stdout.write('', () => process.exit(code));
