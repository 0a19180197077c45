// Preloaded into every test file's process by scripts/test.js. A file must close what it opened (servers, clients,
// timers, child processes): then its process ends by itself once its tests and hooks are done. One that still runs
// TOOLTRAIL_TEST_EXIT_GRACE_MS after its hooks began (default 30 s) leaked a handle: this names the open handles on
// stderr and ends the process with status 1, so the file fails (its summary never comes: the tally names it) instead
// of holding the run until CI's time limit.
import { after } from 'node:test';

const DEFAULT_GRACE_MS = 30_000;

function graceMs(env = process.env) {
  const v = env.TOOLTRAIL_TEST_EXIT_GRACE_MS;
  if (v === undefined || v === '') return DEFAULT_GRACE_MS;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`TOOLTRAIL_TEST_EXIT_GRACE_MS must be a whole number of ms, got "${v}"`);
  return n;
}

const grace = graceMs();

// The first root-level after hook: the file's own after hooks run after it, inside the grace.
after(() => {
  const timer = setTimeout(() => {
    // stdin, stdout and stderr are handles of every process: what else is open is the leak.
    const open = process.getActiveResourcesInfo();
    const file = process.argv[1] ?? 'this test file';
    process.stderr.write(
      `tests: ${file} still runs ${grace / 1000} s after its tests ended: it left open ${open.join(', ')}. ` +
        'Close what the test opened (servers, clients, timers, child processes) in its after hooks; unref or close ' +
        'in the code under test what it leaks itself.\n',
    );
    process.exit(1);
  }, grace);
  // The check itself must not keep a finished file alive.
  timer.unref();
});
