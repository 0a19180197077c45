/**
 * The layout's one-way rule, checked over the import graph (docs/architecture.md has the picture):
 * - contract/ imports nothing of ours, and is imported through contract/index.ts only; platform/ only contract/;
 *   schema/ only contract/ and platform/;
 * - a stage imports contract/, schema/, platform/ and its own folder only, never another stage (the MCP proxy may
 *   use the instrumentation package's public entry, as any agent runtime does);
 * - the dev services import contract/ and platform/; the assembly (cli/) imports anything but tools and tests;
 * - the tools (bench/, chaos/, fuzz/, demo/) and testkit/ never import test/; testkit/ is for tests and tools only.
 * And the CLI's one layout: every command is a folder `cli/commands/<command>/` with `command.ts` (declares it) and
 * `run.ts` (does it); `command.ts` reaches `run.ts` through types and a lazy `import()` only, `run.ts` never
 * imports `command.ts`. `npm run check:imports` lists the imports that break either.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';

export const SHARED = ['contract', 'schema', 'platform'];
export const STAGES = [
  'instrumentation',
  'mcp-proxy',
  'collector',
  'ingest',
  'alerts',
  'audit',
  'reconstruct',
  'dashboards',
];
const TOOLS = ['bench', 'chaos', 'fuzz', 'demo'];

/** What each top-level folder may import, besides itself. `*` = anything not listed in `never`. */
const RULES: Record<string, { may: readonly string[] | '*'; never?: readonly string[] }> = {
  contract: { may: [] },
  platform: { may: ['contract'] },
  schema: { may: ['contract', 'platform'] },
  ...Object.fromEntries(STAGES.map((s) => [s, { may: SHARED }])),
  services: { may: ['contract', 'platform'] },
  cli: { may: '*', never: [...TOOLS, 'testkit', 'test'] },
  bin: { may: ['cli', 'dist'] },
  scripts: { may: [] },
  testkit: { may: '*', never: ['test', ...TOOLS] },
  ...Object.fromEntries(TOOLS.map((t) => [t, { may: '*', never: ['test'] }])),
  test: { may: '*' },
};

/** The shared contract has one entry: what it exports is what every stage may use. */
const CONTRACT_ENTRY = 'contract/index.ts';

/** The one edge across stages the rule allows: a published package used through its public entry. */
const ALLOWED_FILES: Record<string, readonly string[]> = { 'mcp-proxy': ['instrumentation/index.ts'] };

export interface ImportEdge {
  from: string;
  to: string;
}

export interface Violation extends ImportEdge {
  why: string;
}

const folderOf = (path: string) => (path.includes('/') ? path.slice(0, path.indexOf('/')) : '');

/** Every relative import of one source file, as repository paths. */
export function importsOf(file: string, source: string): ImportEdge[] {
  const info = ts.preProcessFile(source, true, true);
  return info.importedFiles
    .map((f) => f.fileName)
    .filter((spec) => spec.startsWith('.'))
    .map((spec) => ({ from: file, to: normalize(join(dirname(file), spec)) }));
}

/** The edge's violation of the rule, or undefined when the edge is allowed. */
export function judge(edge: ImportEdge): Violation | undefined {
  const a = folderOf(edge.from);
  const b = folderOf(edge.to);
  if (a === b || a === '') return undefined;
  const rule = RULES[a];
  if (!rule) return { ...edge, why: `${a}/ has no place in the layout (scripts/import-rules.ts lists the folders)` };
  if (ALLOWED_FILES[a]?.includes(edge.to)) return undefined;
  if (b === 'contract' && edge.to !== CONTRACT_ENTRY) {
    return { ...edge, why: `contract/ is imported through its one entry, ${CONTRACT_ENTRY}` };
  }
  if (rule.never?.includes(b)) return { ...edge, why: `${a}/ never imports ${b}/` };
  if (rule.may === '*' || rule.may.includes(b)) return undefined;
  const may = rule.may.length ? rule.may.map((m) => `${m}/`).join(', ') : 'nothing outside itself';
  return { ...edge, why: `${a}/ imports ${may} only, not ${b}/` };
}

/** The TypeScript and JavaScript sources git tracks under `root`. */
export function sourceFiles(root: string): string[] {
  return execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts', '*.js', '*.mjs'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((f) => f && !f.startsWith('node_modules/') && existsSync(join(root, f)));
}

/** Every import under `root` that breaks the rule. */
export function checkImports(root: string, files = sourceFiles(root)): { edges: number; violations: Violation[] } {
  let edges = 0;
  const violations: Violation[] = [];
  for (const file of files) {
    for (const edge of importsOf(file, readFileSync(join(root, file), 'utf8'))) {
      edges++;
      const v = judge(edge);
      if (v) violations.push(v);
    }
  }
  return { edges, violations };
}

const COMMANDS_DIR = 'cli/commands';

/** The static imports of one source file that carry values (an `import type` or all-`type` names carry none). */
function valueImportsOf(file: string, source: string): string[] {
  const sf = ts.createSourceFile(file, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const specs: string[] = [];
  for (const st of sf.statements) {
    if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
      const clause = st.importClause;
      const named = clause?.namedBindings;
      const typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            named.elements.length > 0 &&
            named.elements.every((e) => e.isTypeOnly)));
      if (!typeOnly) specs.push(st.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
      if (!st.isTypeOnly) specs.push(st.moduleSpecifier.text);
    }
  }
  return specs;
}

/** What breaks the CLI's one layout under `root` (each a line naming the file and the fix). */
export function checkCliLayout(root: string): string[] {
  const dir = join(root, COMMANDS_DIR);
  if (!existsSync(dir)) return [`${COMMANDS_DIR}/ does not exist: every command lives in ${COMMANDS_DIR}/<command>/`];
  const problems: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const folder = `${COMMANDS_DIR}/${entry.name}`;
    if (!entry.isDirectory()) {
      problems.push(`${folder}: only command folders belong in ${COMMANDS_DIR}/`);
      continue;
    }
    const command = `${folder}/command.ts`;
    const run = `${folder}/run.ts`;
    for (const f of [command, run]) if (!existsSync(join(root, f))) problems.push(`${f} is missing`);
    const norm = (from: string, spec: string) => normalize(join(dirname(from), spec));
    if (existsSync(join(root, command))) {
      for (const spec of valueImportsOf(command, readFileSync(join(root, command), 'utf8'))) {
        if (norm(command, spec) === run)
          problems.push(
            `${command} imports run.ts: load it in the action (\`import('./run.ts')\`), import its types only`,
          );
      }
    }
    if (existsSync(join(root, run))) {
      for (const edge of importsOf(run, readFileSync(join(root, run), 'utf8'))) {
        if (edge.to === command) problems.push(`${run} imports command.ts: run.ts owns its flags' types`);
      }
    }
  }
  return problems;
}

if (process.argv[1] && relative(process.argv[1], new URL(import.meta.url).pathname) === '') {
  const root = process.argv[2] ?? join(dirname(new URL(import.meta.url).pathname), '..');
  const { edges, violations } = checkImports(root);
  for (const v of violations) console.log(`${v.from} -> ${v.to}: ${v.why}`);
  console.log(`${edges} imports, ${violations.length} breaking the layout's rule`);
  const cli = checkCliLayout(root);
  for (const p of cli) console.log(p);
  console.log(`${cli.length} breaking the CLI's command layout`);
  process.exitCode = violations.length || cli.length ? 1 : 0;
}
