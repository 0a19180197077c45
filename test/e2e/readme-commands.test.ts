/**
 * The README's main command, as written, on a clean checkout of what is committed: `npm run demo` on the
 * embedded default (its own ClickHouse engine, no Alertmanager: pages kept in a file), leaving nothing running.
 * (The README's other command, `npm ci && npm test`, is what CI runs on a clean clone.)
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, test } from 'node:test';
import { freePort } from '../../services/process.ts';

const repo = resolve(import.meta.dirname, '../..');
const checkout = mkdtempSync(join(tmpdir(), 'tooltrail-clean-'));
// Free ports, never fixed ones: another checkout's suite may run this file at the same time.
const [clickhousePort, alertmanagerPort] = await Promise.all([freePort(), freePort()]);

after(() => {
  spawnSync(process.execPath, ['bin/tooltrail.js', 'services', 'down'], {
    cwd: checkout,
    env: {
      ...process.env,
      TOOLTRAIL_HOME: join(checkout, '.tooltrail'),
      TOOLTRAIL_CLICKHOUSE_PORT: String(clickhousePort),
    },
  });
  rmSync(checkout, { recursive: true, force: true });
});

test('npm run demo on a clean checkout tells the story, keeps the pages, and leaves nothing running', () => {
  const clone = spawnSync('git', ['clone', '-q', repo, checkout], { encoding: 'utf8' });
  assert.equal(clone.status, 0, clone.stderr);
  // `npm ci` is what a user runs first; reusing this checkout's installed packages keeps the test offline and fast.
  symlinkSync(join(repo, 'node_modules'), join(checkout, 'node_modules'));
  const home = join(checkout, '.tooltrail');
  const r = spawnSync('npm', ['run', 'demo'], {
    cwd: checkout,
    encoding: 'utf8',
    // Only against a hung demo (~10 s on a quiet machine): the self-contained lane's soaks may load the machine.
    timeout: 300_000,
    env: {
      ...process.env,
      TOOLTRAIL_HOME: home,
      TOOLTRAIL_CLICKHOUSE_PORT: String(clickhousePort),
      // Nothing listens here: the demo keeps its pages in a file.
      TOOLTRAIL_ALERTMANAGER_PORT: String(alertmanagerPort),
      NO_COLOR: '1',
    },
  });
  assert.equal(r.status, 0, `${r.stdout}\n${r.stderr}`);
  for (const line of [
    'clickhouse   started (embedded engine)',
    'guard: REVIEW REQUESTED -> did not run',
    'INCOMPLETE and EMPTY',
    '[critical] mutation_after_incomplete_read · session demo-naive-guard-off',
    'no finding for: demo-careful',
    'STALE_INDEX',
    'What it could not see:',
    'VERIFIED:',
  ]) {
    assert.ok(r.stdout.includes(line), `demo output lacks "${line}"`);
  }
  const pages = readFileSync(join(home, 'demo', 'pages.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { labels: Record<string, string> });
  const owners = new Set(
    pages.filter((p) => p.labels.alertname === 'MutationAfterIncompleteRead').map((p) => p.labels.owner ?? ''),
  );
  assert.deepEqual([...owners].sort(), ['', 'grc-oncall', 'identity-oncall']);
  assert.ok(existsSync(join(home, 'demo', 'reconstruction-demo-naive-guard-off.html')));

  const leftovers = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes(checkout);
      } catch {
        return false;
      }
    });
  assert.deepEqual(leftovers, [], 'the demo left processes running');
});
