// Which lane each test file runs in (scripts/test.js). Three kinds of file, run side by side where they cannot
// disturb each other:
// - unit: under test/unit/, no services; several files at once.
// - self-contained: a file whose head carries SELF_CONTAINED_MARKER. It starts what it needs itself on free ports
//   under a private home, and touches the shared services, if at all, only through names of its own (a fresh
//   database, its own topics and groups): never Alertmanager or the webhook sink, a fixed port, or a shared
//   service's lifecycle. So it runs beside any other file, and whichever lane is free takes the next one.
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
 * `concurrency` at once), and the pool: the self-contained files, which each lane takes one at a time (one process
 * per file) once its own stages are done, so the lanes end together whichever finishes its stages first.
 * By default two lanes: the shared files and the unit files (a lane with neither takes from the pool at once).
 * TOOLTRAIL_TEST_LANES=sequential makes one lane: the unit files, the shared files, then the pool.
 */
export function planLanes(files, headOf, env = process.env) {
  const kinds = { unit: [], 'self-contained': [], shared: [] };
  for (const f of files) kinds[laneOf(f, headOf(f))].push(f);
  const stage = (kind, concurrency) => ({ kind, files: kinds[kind], concurrency });
  const unit = stage('unit', positive('TOOLTRAIL_TEST_UNIT_CONCURRENCY', env.TOOLTRAIL_TEST_UNIT_CONCURRENCY, 2));
  const shared = stage('shared', positive('TOOLTRAIL_TEST_CONCURRENCY', env.TOOLTRAIL_TEST_CONCURRENCY, 1));
  const mode = env.TOOLTRAIL_TEST_LANES ?? 'parallel';
  if (mode !== 'parallel' && mode !== 'sequential') {
    throw new Error(`TOOLTRAIL_TEST_LANES must be parallel or sequential, got "${mode}"`);
  }
  const planned = mode === 'sequential' ? [[unit, shared]] : [[shared], [unit]];
  const lanes = planned
    .map((stages) => stages.filter((s) => s.files.length > 0))
    .filter((stages) => stages.length > 0)
    .map((stages) => ({ name: stages.map((s) => s.kind).join(' then '), stages }));
  // Up to the run's width, lanes of no stage of their own take self-contained files from the start.
  const width = mode === 'sequential' ? 1 : planned.length;
  const pool = kinds['self-contained'];
  for (let n = Math.min(width - lanes.length, pool.length); n > 0; n--)
    lanes.push({ name: 'self-contained', stages: [] });
  return { lanes, pool };
}
