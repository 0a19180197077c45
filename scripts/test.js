#!/usr/bin/env node
// The README's test command. Starts the local services (idempotent; skipped with --no-services or when they are
// configured as external), runs every *.test.ts under the given folders (default: test/) with node's test runner,
// and closes with node's own summary plus one plain line: "N passed, N failed, N skipped". Every test is counted
// or the run fails: a file that ends before its summary or before reporting a test it announced is named and fails
// it (scripts/test-tally.js). TOOLTRAIL_TEST_CONCURRENCY runs that many files at once (default 1: the integration
// tests share the local services).
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { TALLY_MARKER, uncountedFiles } from './test-tally.js';

// Node 22 is the first whose runner closes each file with its own summary, which the tally needs.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  console.error(`tests: need Node.js 22 or newer, this is ${process.version} (CI's are in .ci/node: see .ci/run)`);
  process.exit(1);
}

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const noServices = args.includes('--no-services');
const roots = args.filter((a) => !a.startsWith('--'));
// --exclude=<file> (repeatable) leaves one file out, e.g. the static checks when only the Node version changed.
const excluded = new Set(args.filter((a) => a.startsWith('--exclude=')).map((a) => a.slice('--exclude='.length)));
const concurrency = process.env.TOOLTRAIL_TEST_CONCURRENCY ?? '1';

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

const child = spawn(
  process.execPath,
  [
    '--import',
    'tsx',
    '--import',
    join(root, 'scripts/test-exit-flush.js'),
    '--test',
    `--test-concurrency=${concurrency}`,
    // A test file whose tests all finished must not hold the run hostage with a stray handle (a CI run that hangs
    // lands nothing); test-exit-flush.js makes that exit wait for the file's results, and the tally checks it did.
    '--test-force-exit',
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    `--test-reporter=${join(root, 'scripts/test-tally.js')}`,
    '--test-reporter-destination=stderr',
    ...files,
  ],
  { cwd: root, stdio: ['inherit', 'inherit', 'pipe'], env: { ...process.env, TOOLTRAIL_TEST_RUN: '1' } },
);
// stderr carries the runner's own messages and, last, the tally's marker line: everything but that line passes on.
let tally;
createInterface({ input: child.stderr }).on('line', (line) => {
  if (line.startsWith(TALLY_MARKER)) tally = JSON.parse(line.slice(TALLY_MARKER.length));
  else process.stderr.write(`${line}\n`);
});
child.on('close', (code) => {
  if (tally === undefined) {
    console.error('tests: the runner ended without its tally: nothing is counted, the run fails');
    process.exit(1);
  }
  const problems = uncountedFiles(
    tally,
    files.map((f) => join(root, f)),
  );
  for (const { file, problem } of problems) console.error(`tests: ${relative(root, file)}: ${problem}`);
  const all = Object.values(tally.files);
  const sum = (k) => all.reduce((n, f) => n + f[k], 0);
  console.log(`${sum('passed')} passed, ${sum('failed')} failed, ${sum('skipped')} skipped`);
  if (problems.length > 0) {
    console.log(`${problems.length} files not fully counted (above): the run fails`);
    process.exit(1);
  }
  process.exit(code ?? 1);
});
