/**
 * The docs hold together: every relative link of a committed Markdown page reaches a file (and its heading), the
 * verdict pages keep their shape and no run-by-run history, every component README states its stability, and the
 * package's CHANGELOG covers the version it ships.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, resolve } from 'node:path';
import { test } from 'node:test';
import { SEMCONV_VERSION } from '../../../contract/index.ts';

const root = resolve(import.meta.dirname, '../../..');
const read = (p: string) => readFileSync(join(root, p), 'utf8');
const withoutCode = (md: string) => md.replace(/```[\s\S]*?```/g, '');

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replaceAll(' ', '-');
const anchorsOf = (md: string) => new Set([...withoutCode(md).matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!)));

const markdownFiles = () =>
  spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.md'], { cwd: root, encoding: 'utf8' })
    .stdout.split('\n')
    .filter((f) => f && !f.includes('node_modules/'));

test('every relative link in the Markdown pages reaches an existing file and heading', () => {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    for (const [, target] of withoutCode(read(file)).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue;
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const to = path ? normalize(join(dirname(file), path)) : file;
      if (!existsSync(join(root, to))) broken.push(`${file}: ${target} (no such file)`);
      else if (anchor && to.endsWith('.md') && !anchorsOf(read(to)).has(anchor))
        broken.push(`${file}: ${target} (no such heading)`);
    }
  }
  assert.deepEqual(broken, []);
});

test('the README stays a README: at most 200 lines, and no run-by-run history', () => {
  const readme = read('README.md');
  assert.ok(readme.split('\n').length <= 201, `README.md has ${readme.split('\n').length} lines`);
  for (const page of ['README.md', 'docs/performance.md', 'docs/reliability.md']) {
    const history = /\b\d{1,2}:\d{2}(?:[–-]\d{1,2}:\d{2})? UTC\b|load average|\bon [0-9a-f]{7,}\b/.exec(read(page));
    assert.equal(history, null, `${page} holds run history ("${history?.[0]}"): it belongs in the commit log`);
  }
});

test('the performance and reliability pages open with the current verdicts and how to re-run them', () => {
  for (const page of ['docs/performance.md', 'docs/reliability.md']) {
    const md = read(page);
    const verdicts = md.indexOf('## Current verdicts');
    assert.ok(verdicts > 0, `${page} has a "Current verdicts" section`);
    assert.ok(md.indexOf('## How to re-run') > verdicts, `${page} says how to re-run, after the verdicts`);
    const table = md.slice(verdicts).split('\n## ')[0]!;
    const rows = table.split('\n').filter((l) => l.startsWith('| [')); // one row per concern, linking its section
    assert.ok(rows.length >= 5, `${page}: ${rows.length} verdict rows`);
    for (const row of rows) assert.match(row, /`[^`]+`[^|]*\|$/, `${page}: a row names its command: ${row}`);
  }
});

test('every component README states its stability', () => {
  const components = [
    'instrumentation',
    'mcp-proxy',
    'collector',
    'ingest',
    'alerts',
    'audit',
    'reconstruct',
    'dashboards',
    'schema',
    'services',
    'cli',
    'platform/kafka',
    'platform/otlp',
  ];
  for (const c of components) assert.match(read(`${c}/README.md`), /^Stability: \S/m, `${c}/README.md`);
});

test('the instrumentation CHANGELOG has an entry for the version the package ships, naming its conventions', () => {
  const pkg = JSON.parse(read('instrumentation/package.json')) as { version: string; files: string[] };
  const changelog = read('instrumentation/CHANGELOG.md');
  const entry = changelog.split(new RegExp(`^## ${pkg.version.replaceAll('.', '\\.')}\\b`, 'm'))[1]?.split(/^## /m)[0];
  assert.ok(entry, `instrumentation/CHANGELOG.md has a "## ${pkg.version}" entry`);
  assert.ok(
    entry.includes(`**${SEMCONV_VERSION}**`),
    `the ${pkg.version} entry names semantic conventions ${SEMCONV_VERSION}`,
  );
  assert.ok(pkg.files.includes('CHANGELOG.md'), 'the package ships its CHANGELOG');
});
