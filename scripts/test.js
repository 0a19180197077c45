#!/usr/bin/env node
// The README's test command. Starts the local services (idempotent; skipped with --no-services or when they are
// configured as external), runs every *.test.ts under the given folders (default: test/) with node's test runner,
// and closes with node's own summary plus one plain line: "N passed, N failed, N skipped".
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const noServices = args.includes('--no-services');
const roots = args.filter((a) => !a.startsWith('--'));
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
    '--test',
    `--test-concurrency=${concurrency}`,
    // A test file whose tests all finished must not hold the run hostage with a stray handle (a CI run that hangs
    // lands nothing); leaks still show up as slow files in the timings.
    '--test-force-exit',
    '--test-reporter=spec',
    ...files,
  ],
  { cwd: root, stdio: ['inherit', 'pipe', 'inherit'], env: { ...process.env, TOOLTRAIL_TEST_RUN: '1' } },
);
// The spec reporter's own summary (`ℹ pass N`) is read from the stream as it passes through: a reporter writing
// to a file is cut short by --test-force-exit, stdout is not.
let tail = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  tail = (tail + chunk.toString('utf8')).slice(-4_000);
});
child.on('exit', (code) => {
  const count = (k) => Number(tail.match(new RegExp(`^\\S* ?${k} (\\d+)$`, 'm'))?.[1] ?? 0);
  const passed = count('pass');
  const failed = count('fail') + count('cancelled');
  const skipped = count('skipped') + count('todo');
  console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(code ?? 1);
});
