/**
 * The instrumentation works with the current OpenTelemetry JS line (sdk-trace 3.x, api 1.10), run under a Node 22
 * binary from the npm registry (the `node` package), from a folder of its own; the repo itself is on the same line.
 * test/compat/otel-current/ holds a pinned package.json + package-lock.json; `npm ci` runs there when its
 * node_modules is missing (serialized with flock, since other test runs may do the same).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { Attr, GenAi, OtelAttr, SEMCONV_VERSION, WarningEvent } from '../../../contract/index.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const compat = join(root, 'test/compat/otel-current');
const node22 = join(compat, 'node_modules/.bin/node');
const LOCK = join(tmpdir(), 'tooltrail-compat-otel-current.lock');

interface ExportedSpan {
  name: string;
  kind: number;
  status: { code: number };
  attributes: Record<string, unknown>;
  events: { name: string; attributes: Record<string, unknown> }[];
  scope: { name: string; version?: string };
}
interface Report {
  node: string;
  sdkTrace: string;
  api: string;
  decisions: string[];
  spans: ExportedSpan[];
}

let stage = '';
let report: Report;

function run(cmd: string, args: string[], cwd: string, timeoutMs: number) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', timeout: timeoutMs });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')} could not run: ${r.error.message}`);
  return r;
}

before(() => {
  if (!existsSync(join(compat, 'node_modules/.package-lock.json')) || !existsSync(node22)) {
    // flock(1) serializes concurrent test runs; the check is repeated under the lock so that a second run does not
    // reinstall (and delete) a tree the first one has just installed and may be using.
    const install =
      'test -x node_modules/.bin/node && test -f node_modules/.package-lock.json || npm ci --no-audit --no-fund';
    const r = run('flock', [LOCK, 'sh', '-c', install], compat, 300_000);
    assert.equal(r.status, 0, `npm ci in test/compat/otel-current failed:\n${r.stderr}`);
  }
  assert.ok(
    existsSync(node22),
    'the Node 22 binary from the npm `node` package is missing: its preinstall did not run (check allowScripts in test/compat/otel-current/package.json and network access to the npm registry)',
  );
  const version = run(node22, ['--version'], compat, 30_000);
  assert.match(version.stdout, /^v22\./, `expected a Node 22 binary, got ${version.stdout} ${version.stderr}`);

  // A staging copy of the library whose bare imports (api, zod) resolve to the compat folder's packages.
  stage = mkdtempSync(join(tmpdir(), 'tooltrail-compat-'));
  for (const dir of ['instrumentation', 'contract']) {
    cpSync(join(root, dir), join(stage, dir), {
      recursive: true,
      filter: (src) => !src.includes('node_modules'),
    });
  }
  writeFileSync(join(stage, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(compat, 'node_modules'), join(stage, 'node_modules'), 'dir');

  const r = run(node22, ['--disable-warning=ExperimentalWarning', 'check-spans.mjs', stage], compat, 60_000);
  assert.equal(r.status, 0, `check-spans.mjs failed under Node 22:\n${r.stderr}`);
  report = JSON.parse(r.stdout) as Report;
});

after(() => {
  if (stage) rmSync(stage, { recursive: true, force: true });
});

function span(name: string, index = 0): ExportedSpan {
  const found = report.spans.filter((s) => s.name === name)[index];
  assert.ok(found, `span ${name} #${index} exported; got ${report.spans.map((s) => s.name).join(', ')}`);
  return found;
}

test('runs under Node 22 with the current line: sdk-trace 3.x and api 1.10', () => {
  assert.match(report.node, /^v22\./);
  assert.match(report.sdkTrace, /^3\./);
  assert.match(report.api, /^1\.10\./);
  assert.equal(report.spans.length, 5);
  assert.ok(readdirSync(stage).includes('instrumentation'));
});

test('a read span carries the documented attributes on the current line', () => {
  const s = span('execute_tool list_first_page');
  assert.equal(s.scope.name, '@tooltrail/instrumentation');
  assert.equal(s.attributes[GenAi.TOOL_CALL_ID], 'call-1');
  assert.equal(s.attributes[GenAi.CONVERSATION_ID], 'compat-1');
  assert.equal(s.attributes[Attr.SESSION_SEQUENCE], 1);
  assert.equal(s.attributes[Attr.SEMCONV_VERSION], SEMCONV_VERSION);
  assert.equal(s.attributes[Attr.RESULT_COMPLETE], false);
  assert.deepEqual(s.attributes[Attr.RESULT_REASONS], ['MORE_PAGES_AVAILABLE']);
  assert.equal(s.attributes[Attr.SCOPE_SNAPSHOT], 'snap-1');
  assert.deepEqual(s.attributes[Attr.WARNINGS], ['STALE_INDEX']);
  assert.deepEqual(s.events, [
    {
      name: WarningEvent.NAME,
      attributes: {
        [WarningEvent.CODE]: 'STALE_INDEX',
        [WarningEvent.MESSAGE]: 'lagging',
        [WarningEvent.SOURCE]: 'accounts-index',
      },
    },
  ]);
  assert.equal(JSON.stringify(s).includes('not-recorded'), false, 'arguments are not recorded by default');
});

test('the guard decides and records on the current line', () => {
  assert.deepEqual(report.decisions, ['refused', 'allowed']);
  const refused = span('execute_tool delete_accounts', 0);
  assert.equal(refused.attributes[Attr.GUARD_DECISION], 'refused');
  assert.deepEqual(refused.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], ['call-1']);
  const allowed = span('execute_tool delete_accounts', 1);
  assert.equal(allowed.attributes[Attr.GUARD_DECISION], 'allowed');
  assert.deepEqual(allowed.attributes[Attr.MUTATION_EVIDENCE_CALL_IDS], ['call-3']);
  assert.deepEqual(allowed.attributes[Attr.MUTATION_EVIDENCE_SNAPSHOTS], ['snap-1']);
  assert.equal(span('execute_tool list_all').attributes[Attr.RESULT_COMPLETE], true);
});

test('a thrown error follows the OTel rules on the current line', () => {
  const s = span('execute_tool broken');
  assert.equal(s.status.code, 2);
  assert.equal(s.attributes[OtelAttr.ERROR_TYPE], 'TypeError');
  assert.ok(s.events.some((e) => e.name === 'exception'));
});
