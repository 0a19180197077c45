/**
 * `tooltrail --help` lists every command and `tooltrail <command> --help` every option, while the commands' code
 * loads only when one runs: `--help` loads commander and the registrations, no zod, ClickHouse client, YAML,
 * fastify, Kafka or OpenTelemetry. And bin/tooltrail.js runs the compiled dist/ whenever it is current.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { builtCliIsCurrent } from '../../../bin/build-state.js';
import { buildProgram } from '../../../cli/program.ts';

const root = resolve(import.meta.dirname, '../../..');

/** Every command and the options its help must show (a command added later may show more). */
const COMMANDS: [string, string[]][] = [
  ['up', ['--kafka', '--host', '--port', '--tokens', '--evaluate-every', '--tokens-file', '--default-tenant']],
  ['services', []],
  ['services up', ['--kafka-brokers', '--kafka-sasl-ssl']],
  ['services down', ['--purge']],
  ['services status', ['--json']],
  ['migrate', ['--down', '--print']],
  ['collector', ['--config', '--host', '--port', '--no-auth', '--topic', '--sink']],
  [
    'ingest',
    [
      '--topic',
      '--group',
      '--dlq-topic',
      '--database',
      '--batch-max-rows',
      '--batch-max-bytes',
      '--linger-ms',
      '--default-tenant',
      '--metrics-port',
      '--no-audit-digests',
    ],
  ],
  ['dlq', []],
  ['dlq list', ['--reason', '--since', '--until', '--dlq-topic', '--json']],
  ['dlq show', ['--dlq-topic', '--json']],
  ['dlq replay', ['--reason', '--since', '--until', '--all', '--force', '--to-topic', '--dlq-topic', '--json']],
  ['alerts', ['--once', '--interval', '--tenant', '--pending-period', '--json']],
  ['findings', ['--since', '--token', '--tenant', '--all-tenants', '--json']],
  ['owners', []],
  ['owners set', ['--owner', '--team', '--source', '--tenant', '--by', '--reason']],
  ['owners remove', ['--source', '--tenant', '--by', '--reason']],
  ['owners list', ['--tenant', '--json']],
  ['warnings', ['--token', '--tenant', '--all-tenants', '--json']],
  ['warnings retire', ['--tenant', '--by', '--reason']],
  ['warnings ack', ['--tenant', '--due', '--owner', '--team', '--by', '--reason']],
  ['warnings history', ['--token', '--tenant', '--all-tenants', '--json']],
  [
    'reconstruct',
    [
      '--session',
      '--trace',
      '--finding',
      '--tenant',
      '--token',
      '--all-tenants',
      '--json',
      '--html',
      '--max-calls',
      '--schema',
    ],
  ],
  ['verify', ['--tenant', '--token', '--all-tenants', '--from', '--to', '--json', '--bundle', '--key', '--no-rows']],
  ['serve-api', ['--host', '--port', '--no-auth', '--local-tenant']],
  ['checkpoint', []],
  ['checkpoint keygen', ['--name']],
  ['checkpoint verify', ['--later', '--key', '--json']],
  ['delete', ['--tenant', '--from', '--to', '--reason', '--by', '--json']],
  ['status', ['--since', '--token', '--tenant', '--all-tenants', '--collector', '--json']],
  [
    'mcp-proxy',
    [
      '--upstream',
      '--upstream-header',
      '--host',
      '--port',
      '--path',
      '--guard',
      '--otlp-endpoint',
      '--otlp-header',
      '--policy',
      '--service-name',
    ],
  ],
];

// Prints, at exit, every module the process loaded, one per line on stderr.
const HOOK = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on('exit', () => process.stderr.write(seen.map((u) => 'loaded ' + u + '\\n').join('')));
`)}`;

function runBin(args: string[]) {
  const r = spawnSync(process.execPath, ['--import', HOOK, resolve(root, 'bin/tooltrail.js'), ...args], {
    cwd: root,
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const loaded = r.stderr
    .split('\n')
    .filter((l) => l.startsWith('loaded file:'))
    .map((l) => l.slice('loaded file://'.length));
  return { stdout: r.stdout, loaded };
}

/** The npm packages among loaded files (scope and name). */
function packagesOf(files: string[]): Set<string> {
  const names = new Set<string>();
  for (const f of files) {
    const m = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f);
    if (m?.[1]) names.add(m[1]);
  }
  return names;
}

/** Help text as a user gets it, through commander's own parsing of `<path> --help`. */
async function helpOf(path: string[]): Promise<string> {
  let text = '';
  const program = buildProgram({
    exitOverride: true,
    output: { writeOut: (s) => (text += s), writeErr: (s) => (text += s) },
  });
  await assert.rejects(program.parseAsync(['node', 'tooltrail', ...path, '--help']), {
    code: 'commander.helpDisplayed',
  });
  return text;
}

describe('tooltrail --help', () => {
  it('lists every top-level command, and loads no package but commander to do it', () => {
    const { stdout, loaded } = runBin(['--help']);
    for (const [path] of COMMANDS.filter(([p]) => !p.includes(' '))) {
      assert.match(stdout, new RegExp(`^  ${path}\\b`, 'm'), `tooltrail ${path} is not listed`);
    }
    // Through tsx (a source newer than the build) the loader's own packages load too; nothing of a command.
    const heavy = [...packagesOf(loaded)].filter((p) => !['commander', 'tsx', 'esbuild'].includes(p));
    assert.deepEqual(heavy, [], `--help loaded ${heavy.join(', ')}`);
  });

  it('runs the compiled dist/ when it is current (npm ci builds it), the sources otherwise', () => {
    const { loaded } = runBin(['--help']);
    const ours = loaded.filter((f) => f.startsWith(root) && !f.includes('/node_modules/'));
    const fromDist = ours.filter((f) => f.startsWith(`${root}/dist/`));
    const fromSources = ours.filter((f) => f.endsWith('.ts'));
    if (builtCliIsCurrent().current) {
      assert.deepEqual(fromSources, []);
      assert.ok(
        fromDist.some((f) => f.endsWith('/dist/cli/main.js')),
        'dist/cli/main.js was not run',
      );
      assert.deepEqual([...packagesOf(loaded)], ['commander']);
    } else {
      assert.deepEqual(fromDist, []);
      assert.ok(
        fromSources.some((f) => f.endsWith('/cli/main.ts')),
        'cli/main.ts was not run',
      );
    }
  });

  for (const [path, options] of COMMANDS) {
    it(`tooltrail ${path} --help shows ${options.length ? options.join(' ') : 'its subcommands'}`, async () => {
      const text = await helpOf(path.split(' '));
      assert.match(text, new RegExp(`^Usage: tooltrail ${path}\\b`, 'm'));
      for (const option of options) assert.match(text, new RegExp(`^\\s+(-\\w, )?${option}\\b`, 'm'), option);
      for (const [sub] of COMMANDS.filter(([p]) => p.startsWith(`${path} `) && p.split(' ').length === 2)) {
        assert.match(text, new RegExp(`^  ${sub.split(' ')[1]}\\b`, 'm'), `${sub} is not listed`);
      }
    });
  }
});
