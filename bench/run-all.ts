/**
 * `npm run bench`: runs every benchmark of the project, one after the other, each as its own child process (its
 * CPU, heap and exit are its own), under the machine's shared bench lock when there is one; reads the BENCH_JSON
 * line each prints last (bench/support/report.ts) and prints one table, and writes all reports as JSON.
 *
 *   npm run bench -- [--only a,b] [--quick] [--out file.json] [--no-lock] [--timeout-minutes 60]
 *
 * A full run (no --only, no --quick) writes bench/results/latest.json and bench/results/<date>-<commit>.json;
 * a partial one writes .tooltrail/bench/latest-partial.json, so bench/results/ only holds comparable full runs.
 * Each bench's output goes to .tooltrail/bench/<stamp>/<bench>.log; its stdout is echoed, indented.
 * Do not wrap this command in `flock /tmp/bench.lock` yourself: it takes that lock per bench (or pass --no-lock).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { BENCHES, type BenchSpec, selectBenches } from './run-all/benches.ts';
import { type BenchOutcome, benchOutcome, formatTable, lastLine, runExitCode } from './run-all/table.ts';
import { BENCH_JSON_PREFIX } from './support/report.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LOCK = '/tmp/bench.lock';
/** stderr kept in memory for the FAILED reason; the whole of it is in the log. */
const STDERR_TAIL_BYTES = 16_384;

const { values: args } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    'no-lock': { type: 'boolean', default: false },
    'timeout-minutes': { type: 'string', default: '60' },
  },
});

function git(...a: string[]): string | undefined {
  try {
    return execFileSync('git', a, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return undefined;
  }
}

const round2 = (x: number) => Math.round(x * 100) / 100;

function machine() {
  return {
    cores: availableParallelism(),
    cpu: cpus()[0]?.model ?? 'unknown',
    load: loadavg().map(round2),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
  };
}

/** flock(1) when the shared lock file exists and the tool is installed; otherwise benches run unlocked. */
function lockCommand(): string[] {
  if (args['no-lock']) return [];
  if (!existsSync(LOCK)) return [];
  const probe = spawnSync('flock', ['--version'], { stdio: 'ignore' });
  if (probe.error) {
    console.log(`(flock is not installed: running without ${LOCK})`);
    return [];
  }
  return ['flock', LOCK];
}

let current: ChildProcess | undefined;
function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  // The child leads its own process group (detached): flock, node and the bench's own forks stop together.
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, signal);
    } catch {
      // already gone
    }
  }
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (current) killGroup(current, 'SIGTERM');
    process.exit(130);
  });
}

async function runBench(spec: BenchSpec, lock: string[], logDir: string, timeoutMs: number): Promise<BenchOutcome> {
  if (!existsSync(join(ROOT, spec.file))) {
    return { bench: spec.name, status: 'unavailable', reason: `${spec.file} does not exist` };
  }
  const benchArgs = args.quick ? spec.quick : spec.full;
  const argv = [...lock, process.execPath, '--import', 'tsx', spec.file, ...benchArgs];
  const log = join(logDir, `${spec.name.replaceAll('/', '-')}.log`);
  const logStream = createWriteStream(log);
  logStream.write(`$ ${argv.join(' ')}\n# load average at start: ${loadavg().map(round2).join(' ')}\n`);
  console.log(`\n== ${spec.name}: ${argv.slice(lock.length + 1).join(' ')}  (log: ${relative(ROOT, log)})`);

  // Say so when another bench holds the lock, so a long silence is not taken for a hung bench.
  if (lock.length && spawnSync('flock', ['-n', LOCK, 'true'], { stdio: 'ignore' }).status !== 0) {
    console.log(`   (waiting for ${LOCK}: another bench is running)`);
  }
  const t0 = performance.now();
  const child = spawn(argv[0] as string, argv.slice(1), {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
    env: { ...process.env, FORCE_COLOR: '0' },
  });
  current = child;
  let stdout = '';
  let stderrTail = '';
  let pending = '';
  child.stdout?.setEncoding('utf8');
  child.stderr?.setEncoding('utf8');
  child.stdout?.on('data', (chunk: string) => {
    stdout += chunk;
    logStream.write(chunk);
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (!line.startsWith(BENCH_JSON_PREFIX)) console.log(`   ${line}`);
  });
  child.stderr?.on('data', (chunk: string) => {
    logStream.write(chunk);
    stderrTail = (stderrTail + chunk).slice(-STDERR_TAIL_BYTES);
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child, 'SIGTERM');
    setTimeout(() => killGroup(child, 'SIGKILL'), 10_000).unref();
  }, timeoutMs);
  const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => {
    child.once('error', (e) => {
      stderrTail += `\n${e.message}`;
      resolve([127, null]);
    });
    child.once('close', (code, sig) => resolve([code, sig]));
  });
  clearTimeout(timer);
  current = undefined;
  if (pending && !pending.startsWith(BENCH_JSON_PREFIX)) console.log(`   ${pending}`);
  const durationMs = performance.now() - t0;
  logStream.end(`\n# exit ${exitCode ?? signal} after ${(durationMs / 1000).toFixed(1)} s\n`);
  const outcome = benchOutcome(
    {
      bench: spec.name,
      exitCode,
      signal,
      stdout,
      lastStderrLine: timedOut ? `timed out after ${timeoutMs / 60_000} min` : lastLine(stderrTail),
      durationMs,
      log: relative(ROOT, log),
    },
    spec.optional,
  );
  console.log(
    `   -> ${outcome.status === 'ok' ? 'ok' : outcome.status === 'failed' ? `FAILED: ${outcome.reason}` : `not available: ${outcome.reason}`} (${(durationMs / 1000).toFixed(0)} s)`,
  );
  return outcome;
}

async function main(): Promise<number> {
  const selected = selectBenches(args.only, BENCHES);
  const timeoutMs = Number(args['timeout-minutes']) * 60_000;
  if (!(timeoutMs > 0)) throw new Error(`--timeout-minutes: not a positive number: ${args['timeout-minutes']}`);
  const partial = args.quick || args.only !== undefined;
  const started = new Date();
  const stamp = started.toISOString().replace(/[:.]/g, '-');
  const logDir = join(ROOT, '.tooltrail', 'bench', stamp);
  mkdirSync(logDir, { recursive: true });
  const lock = lockCommand();
  const commit = git('rev-parse', 'HEAD') ?? 'unknown';
  const dirty = (git('status', '--porcelain', '--untracked-files=no') ?? '') !== '';
  const atStart = machine();
  console.log(
    `npm run bench: ${selected.map((b) => b.name).join(', ')}${args.quick ? ' (--quick sizes)' : ''}; ` +
      `commit ${commit.slice(0, 10)}${dirty ? ' (with uncommitted changes)' : ''}; ${atStart.cores} cores, load ${atStart.load.join(' ')}; ` +
      (lock.length ? `each bench under ${lock.join(' ')}` : 'no bench lock'),
  );

  const outcomes: BenchOutcome[] = [];
  for (const spec of selected) outcomes.push(await runBench(spec, lock, logDir, timeoutMs));
  const atEnd = machine();

  console.log(`\n${formatTable(outcomes)}`);
  console.log(
    `\nload average: ${atStart.load.join(' ')} at start, ${atEnd.load.join(' ')} at end (${atEnd.cores} cores)`,
  );

  const result = {
    date: started.toISOString(),
    finished: new Date().toISOString(),
    commit,
    dirty,
    quick: args.quick,
    only: args.only ?? null,
    machine: { ...atStart, loadAtStart: atStart.load, loadAtEnd: atEnd.load },
    benches: outcomes,
  };
  const json = `${JSON.stringify(result, null, 2)}\n`;
  const targets = args.out
    ? [args.out]
    : partial
      ? [join(ROOT, '.tooltrail', 'bench', 'latest-partial.json')]
      : [
          join(ROOT, 'bench', 'results', 'latest.json'),
          join(ROOT, 'bench', 'results', `${started.toISOString().slice(0, 10)}-${commit.slice(0, 10)}.json`),
        ];
  for (const file of targets) {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, json);
    console.log(`wrote ${relative(ROOT, file).startsWith('..') ? file : relative(ROOT, file)}`);
  }
  return runExitCode(outcomes);
}

process.exitCode = await main();
