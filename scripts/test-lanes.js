// Which lane each test file runs in (scripts/test.js). Three kinds of file, run side by side where they cannot
// disturb each other:
// - unit: under test/unit/, no services; several files at once.
// - self-contained: a file whose head carries SELF_CONTAINED_MARKER. It starts what it needs itself on free ports
//   under a private home, and touches the shared services, if at all, only through names of its own (a fresh
//   database, its own topics and groups): never Alertmanager or the webhook sink, a fixed port, or a shared
//   service's lifecycle. So it runs beside the shared lane.
// - shared: every other file; they share the local services, one file at a time by default.
import { closeSync, openSync, readSync } from 'node:fs';

export const SELF_CONTAINED_MARKER = '// test-lane: self-contained';

const HEAD_BYTES = 4096;

/** The first bytes of a file: the marker stands before the imports. */
export function readHead(file) {
  const fd = openSync(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    return buf.subarray(0, readSync(fd, buf, 0, HEAD_BYTES, 0)).toString('utf8');
  } finally {
    closeSync(fd);
  }
}

/** 'unit' | 'self-contained' | 'shared' for a file (path relative to the repository) and its head. */
export function laneOf(file, head) {
  if (head.split('\n').some((line) => line.startsWith(SELF_CONTAINED_MARKER))) return 'self-contained';
  if (file.startsWith('test/unit/')) return 'unit';
  return 'shared';
}

const positive = (name, value, fallback) => {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} must be a whole number of at least 1, got "${value}"`);
  return n;
};

/**
 * The run as lanes that go side by side, each a sequence of stages (one `node --test` process each, its files at
 * `concurrency` at once). By default: the shared lane, and beside it the unit files then the self-contained ones.
 * TOOLTRAIL_TEST_LANES=sequential puts every stage in one lane, one after another.
 */
export function planLanes(files, headOf, env = process.env) {
  const kinds = { unit: [], 'self-contained': [], shared: [] };
  for (const f of files) kinds[laneOf(f, headOf(f))].push(f);
  const stage = (kind, concurrency) => ({ kind, files: kinds[kind], concurrency });
  const unit = stage('unit', positive('TOOLTRAIL_TEST_UNIT_CONCURRENCY', env.TOOLTRAIL_TEST_UNIT_CONCURRENCY, 2));
  const own = stage('self-contained', 1);
  const shared = stage('shared', positive('TOOLTRAIL_TEST_CONCURRENCY', env.TOOLTRAIL_TEST_CONCURRENCY, 1));
  const mode = env.TOOLTRAIL_TEST_LANES ?? 'parallel';
  if (mode !== 'parallel' && mode !== 'sequential') {
    throw new Error(`TOOLTRAIL_TEST_LANES must be parallel or sequential, got "${mode}"`);
  }
  const lanes = mode === 'sequential' ? [[unit, own, shared]] : [[shared], [unit, own]];
  return lanes
    .map((stages) => stages.filter((s) => s.files.length > 0))
    .filter((stages) => stages.length > 0)
    .map((stages) => ({ name: stages.map((s) => s.kind).join(' then '), stages }));
}
