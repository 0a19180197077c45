/**
 * bin/tooltrail.js runs the compiled CLI when dist/ holds a build no older than the sources, and the sources through
 * tsx otherwise, so that nobody runs stale code. Which modules a run loaded is read with a module hook.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';

const root = resolve(import.meta.dirname, '../../..');
// Prints, at exit, every tooltrail module the process loaded (node_modules left out), one per line on stderr.
const HOOK = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ load(url, context, next) { if (url.startsWith('file:') && !url.includes('/node_modules/')) seen.push(url); return next(url, context); } });
process.on('exit', () => process.stderr.write(seen.map((u) => 'loaded ' + u + '\\n').join('')));
`)}`;

/** A copy of the repo's CLI sources with a minimal dist/ build of its own, sharing node_modules by a symlink. */
let copy: string;
before(() => {
  copy = mkdtempSync(join(tmpdir(), 'tooltrail-bin-'));
  cpSync(join(root, 'bin'), join(copy, 'bin'), { recursive: true });
  cpSync(join(root, 'package.json'), join(copy, 'package.json'));
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  // The sources: a cli/main.ts that says it ran; the build: a dist/cli/main.js that says so.
  const cli = join(copy, 'cli');
  cpSync(join(root, 'test/unit/foundation/fixtures/bin-cli'), cli, { recursive: true });
  cpSync(join(root, 'test/unit/foundation/fixtures/bin-dist'), join(copy, 'dist'), { recursive: true });
});
after(() => rmSync(copy, { recursive: true, force: true }));

function run() {
  const r = spawnSync(process.execPath, ['--import', HOOK, join(copy, 'bin/tooltrail.js')], {
    cwd: copy,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  return r;
}

function age(file: string, secondsAgo: number) {
  const t = new Date(Date.now() - secondsAgo * 1000);
  utimesSync(file, t, t);
}

describe('bin/tooltrail.js: the compiled CLI when it is current, the sources otherwise', () => {
  it('runs dist/cli/main.js when no source is newer than the build', () => {
    age(join(copy, 'cli/main.ts'), 60);
    age(join(copy, 'dist/BUILT'), 10);
    const r = run();
    assert.equal(r.stdout.trim(), 'compiled');
    assert.doesNotMatch(r.stderr, /loaded .*\/cli\/main\.ts/);
  });

  it('runs cli/main.ts through tsx once a source is newer than the build', () => {
    age(join(copy, 'dist/BUILT'), 60);
    age(join(copy, 'cli/main.ts'), 10);
    const r = run();
    assert.equal(r.stdout.trim(), 'sources');
    assert.doesNotMatch(r.stderr, /loaded .*\/dist\/cli\/main\.js/);
  });
});

describe('bin/tooltrail.js on a Node older than 22.22', () => {
  it('prints one line naming the version needed and the one found, exits 1, loads nothing of tooltrail', () => {
    // The version a Node 20 reports, set before bin/tooltrail.js reads it.
    const old = `data:text/javascript,${encodeURIComponent(
      "Object.defineProperty(process, 'versions', { value: { ...process.versions, node: '20.20.2' } });" +
        "Object.defineProperty(process, 'version', { value: 'v20.20.2' });",
    )}`;
    const r = spawnSync(
      process.execPath,
      ['--import', old, '--import', HOOK, join(root, 'bin/tooltrail.js'), '--help'],
      {
        encoding: 'utf8',
      },
    );
    assert.equal(r.status, 1);
    const lines = r.stderr.split('\n').filter((l) => l && !l.startsWith('loaded '));
    assert.deepEqual(lines, [
      'tooltrail: needs Node.js 22.22 or newer (24 and 26 are the LTS lines); this is v20.20.2',
    ]);
    assert.deepEqual(
      r.stderr
        .split('\n')
        .filter((l) => l.startsWith('loaded '))
        .map((l) => l.slice(l.lastIndexOf('/') + 1)),
      ['tooltrail.js'],
    );
    assert.equal(r.stdout, '');
  });
});
