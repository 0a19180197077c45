/**
 * `@tooltrail/instrumentation` as a user gets it: `npm pack` (its prepack builds dist/), the tarball installed into an
 * empty project offline (the lockfile is the repo's own entries for the packages needed, fetched from the npm cache
 * that `npm ci` filled), then the README's examples run as written with plain `node`, once with
 * TracerProvider and once with NodeSDK, and the spans their console exporter printed are checked.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';
import { Attr, EXECUTE_TOOL, GenAi, SEMCONV_VERSION } from '../../../contract/index.ts';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const packageDir = join(root, 'instrumentation');
const pkg = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as PackageJson;
const readme = readFileSync(join(packageDir, 'README.md'), 'utf8');
/** What the user installs besides the package (the package brings zod). */
const USER_DEPENDENCIES = ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/sdk-node'];

interface PackageJson {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
  optionalDependencies?: Record<string, string>;
  [key: string]: unknown;
}
type LockEntry = PackageJson & { resolved?: string; integrity?: string };

let project = '';

function run(cmd: string, args: string[], cwd: string, timeoutMs = 300_000) {
  const r = spawnSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    timeout: timeoutMs,
    // The child sees no OTEL_* settings of this shell: the examples configure everything themselves.
    env: Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OTEL_'))),
  });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')} could not run: ${r.error.message}`);
  return r;
}

/** Where `name` resolves from the package at `from` (Node's rule: the nearest node_modules up the path). */
function resolveIn(packages: Record<string, LockEntry>, from: string, name: string): string | undefined {
  let base = from;
  for (;;) {
    const candidate = `${base ? `${base}/` : ''}node_modules/${name}`;
    if (packages[candidate]) return candidate;
    if (!base) return undefined;
    const cut = base.lastIndexOf('/node_modules/');
    base = cut < 0 ? '' : base.slice(0, cut);
  }
}

/** The repo lockfile's entries for `names` and everything they need, at the same paths. */
function lockSubset(packages: Record<string, LockEntry>, names: string[]): Record<string, LockEntry> {
  const out: Record<string, LockEntry> = {};
  const visit = (from: string, name: string, optional: boolean) => {
    const path = resolveIn(packages, from, name);
    if (path === undefined) {
      if (optional) return;
      throw new Error(
        `the repo's package-lock.json has no ${name} for ${from || 'the root'}: add it to devDependencies`,
      );
    }
    if (out[path]) return;
    const { dev, devOptional, peer, ...entry } = packages[path] as LockEntry & Record<string, unknown>;
    void dev;
    void devOptional;
    void peer;
    // The repo's lockfile leaves out registry URLs; npm needs one to look a tarball up offline (by its integrity).
    out[path] = entry.resolved === undefined ? { ...entry, resolved: registryTarball(path, entry.version) } : entry;
    for (const dep of Object.keys(entry.dependencies ?? {})) visit(path, dep, false);
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) visit(path, dep, true);
    for (const dep of Object.keys(entry.peerDependencies ?? {})) {
      visit(path, dep, entry.peerDependenciesMeta?.[dep]?.optional === true);
    }
  };
  for (const name of names) visit('', name, false);
  return out;
}

/** The registry's tarball URL for the package installed at `path` (`node_modules/@scope/name` -> `@scope/name`). */
function registryTarball(path: string, version: string): string {
  const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length);
  return `https://registry.npmjs.org/${name}/-/${name.split('/').at(-1)}-${version}.tgz`;
}

/** The README's `js` block that follows `heading` (or the first one). */
function example(heading?: string): string {
  const from = heading === undefined ? 0 : readme.indexOf(heading);
  assert.ok(from >= 0, `the README has a "${heading}" section`);
  const code = /```js\n([\s\S]*?)```/.exec(readme.slice(from))?.[1];
  assert.ok(code, `a js example${heading ? ` under "${heading}"` : ''}`);
  return code;
}

before(() => {
  project = mkdtempSync(join(tmpdir(), 'tooltrail-package-'));
  const packed = run('npm', ['pack', '--json', '--pack-destination', project], packageDir);
  assert.equal(packed.status, 0, `npm pack failed:\n${packed.stderr}`);
  const [tarball] = JSON.parse(packed.stdout) as { filename: string; integrity: string }[];
  assert.ok(tarball, 'npm pack reported its tarball');
  const files = (JSON.parse(packed.stdout) as { files: { path: string }[] }[])[0]?.files.map((f) => f.path) ?? [];
  assert.ok(!files.some((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')), `no .ts sources in the tarball: ${files}`);

  const repoLock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, LockEntry>;
  };
  const needed = [...USER_DEPENDENCIES, ...Object.keys(pkg.dependencies ?? {})];
  const subset = lockSubset(repoLock.packages, needed);
  const versions = Object.fromEntries(USER_DEPENDENCIES.map((n) => [n, subset[`node_modules/${n}`]?.version ?? '']));
  const dependencies = { ...versions, [pkg.name]: `file:${tarball.filename}` };
  const manifest = { name: 'tooltrail-package-user', private: true, type: 'module', dependencies };
  const { scripts, exports, files: _files, types, sideEffects, description, ...ownEntry } = pkg;
  void [scripts, exports, _files, types, sideEffects, description];
  const lock = {
    name: manifest.name,
    lockfileVersion: 3,
    requires: true,
    packages: {
      '': { name: manifest.name, dependencies },
      [`node_modules/${pkg.name}`]: { ...ownEntry, resolved: `file:${tarball.filename}`, integrity: tarball.integrity },
      ...subset,
    },
  };
  writeFileSync(join(project, 'package.json'), JSON.stringify(manifest, null, 2));
  writeFileSync(join(project, 'package-lock.json'), JSON.stringify(lock, null, 2));
  const installed = run('npm', ['ci', '--offline', '--ignore-scripts', '--no-audit', '--no-fund'], project);
  assert.equal(
    installed.status,
    0,
    `npm ci --offline failed (is every package in the npm cache? run npm ci in the repo):\n${installed.stderr}`,
  );
});

after(() => {
  if (project) rmSync(project, { recursive: true, force: true });
});

/** The console exporter prints one object per span; the line `'key': value` as util.inspect writes it. */
function spanPrinted(stdout: string, spanName: string): string {
  const blocks = stdout.split(/^\{$/m).map((b) => b.split(/^\}$/m)[0] ?? '');
  const block = blocks.find((b) => b.includes(`name: ${inspect(spanName)},`));
  assert.ok(block, `the exporter printed a span named ${spanName}:\n${stdout.slice(0, 3000)}`);
  return block;
}
function hasAttribute(block: string, key: string, value: unknown): void {
  const line = `${inspect(key)}: ${inspect(value)}`;
  assert.ok(block.includes(line), `${line} in the exported span:\n${block}`);
}

function runExample(file: string, code: string): string {
  writeFileSync(join(project, file), code);
  const r = run(process.execPath, [file], project, 60_000);
  assert.equal(r.status, 0, `node ${file} failed:\n${r.stderr}`);
  const expected = /\/\/ (.+)$/m.exec(code.split('\n').find((l) => l.startsWith('console.log')) ?? '')?.[1];
  assert.ok(expected && r.stdout.includes(expected), `stdout has "${expected}":\n${r.stdout.slice(0, 2000)}`);
  return r.stdout;
}

function checkSpans(stdout: string): void {
  const read = spanPrinted(stdout, `${EXECUTE_TOOL} list`);
  hasAttribute(read, GenAi.OPERATION_NAME, EXECUTE_TOOL);
  hasAttribute(read, Attr.EFFECT, 'read');
  hasAttribute(read, Attr.RESULT_COMPLETE, false);
  hasAttribute(read, Attr.RESULT_REASONS, ['TIME_BUDGET_EXCEEDED']);
  hasAttribute(read, Attr.SEMCONV_VERSION, SEMCONV_VERSION);
  const mutation = spanPrinted(stdout, `${EXECUTE_TOOL} disable_accounts`);
  hasAttribute(mutation, GenAi.TOOL_NAME, 'disable_accounts');
  hasAttribute(mutation, GenAi.CONVERSATION_ID, 'conv-42');
  hasAttribute(mutation, GenAi.AGENT_NAME, 'janitor');
  hasAttribute(mutation, Attr.EFFECT, 'mutation');
  hasAttribute(mutation, Attr.MUTATION_BASIS, 'presence');
  hasAttribute(mutation, Attr.MUTATION_TARGET_COUNT, 1);
  hasAttribute(mutation, Attr.GUARD_DECISION, 'review_requested');
  assert.ok(mutation.includes(`name: ${inspect(pkg.name)}`), 'the instrumentation scope is the package');
}

test('the packed package installs offline and the README example runs with plain node and TracerProvider', () => {
  checkSpans(runExample('basic-tracer-provider.mjs', example()));
});

test('the README NodeSDK example runs with plain node against the installed package', () => {
  checkSpans(runExample('node-sdk.mjs', example('### With the Node SDK')));
});

test('the installed package declares its types: a TypeScript consumer type-checks and a wrong call is caught', () => {
  writeFileSync(
    join(project, 'consumer.ts'),
    [
      "import { createTooltrail, type MutationOutcome } from '@tooltrail/instrumentation';",
      'const tt = createTooltrail();',
      "const session = tt.session({ conversationId: 'c' });",
      "const remove = tt.mutationTool('remove', (a: { ids: string[] }) => ({ ids: a.ids }));",
      "export const out: Promise<MutationOutcome> = remove(session, { ids: ['x'] });",
      '// @ts-expect-error a session needs its conversationId (this line is an error only if the types resolved)',
      'tt.session({});',
      '',
    ].join('\n'),
  );
  const compilerOptions = {
    strict: true,
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'es2022',
    noEmit: true,
    skipLibCheck: true,
    types: [],
  };
  writeFileSync(join(project, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
  const r = run(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', '.'], project, 120_000);
  assert.equal(r.status, 0, `tsc on a consumer of the installed package:\n${r.stdout}${r.stderr}`);
});

test('every subpath the package exports imports with plain node from the installed tarball', () => {
  const subpaths = Object.keys(pkg.exports as Record<string, unknown>).filter((s) => s !== './package.json');
  for (const sub of subpaths) {
    const specifier = `${pkg.name}${sub.slice(1)}`;
    const r = run(process.execPath, ['--input-type=module', '-e', `const m = await import('${specifier}');`], project);
    assert.equal(r.status, 0, `import('${specifier}') failed:\n${r.stderr}`);
  }
  assert.ok(subpaths.includes('./evidence'), 'the evidence receipts are exported too');
});
