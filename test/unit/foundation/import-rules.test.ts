/** The layout's one-way rule (docs/architecture.md), checked over the real import graph. */
import assert from 'node:assert/strict';
import { appendFileSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, it } from 'node:test';
import { checkCliLayout, checkImports, judge, sourceFiles } from '../../../scripts/import-rules.ts';

const root = resolve(import.meta.dirname, '../../..');

describe('import rules: data flows one way', () => {
  it('the tree as it is breaks none of them', () => {
    const { edges, violations } = checkImports(root);
    assert.ok(edges > 500, `read ${edges} imports`);
    assert.deepEqual(
      violations.map((v) => `${v.from} -> ${v.to}: ${v.why}`),
      [],
    );
  });

  it('a copy of the tree with one planted back-edge (the ingest importing the audit) fails on exactly that import', () => {
    const files = sourceFiles(root);
    const copy = mkdtempSync(join(tmpdir(), 'tooltrail-import-rules-'));
    try {
      for (const f of files) {
        mkdirSync(dirname(join(copy, f)), { recursive: true });
        copyFileSync(join(root, f), join(copy, f));
      }
      appendFileSync(
        join(copy, 'ingest/writer.ts'),
        "\nexport { createDigestRecorder } from '../audit/recorder.ts';\n",
      );
      const { violations } = checkImports(copy, files);
      assert.deepEqual(violations, [
        {
          from: 'ingest/writer.ts',
          to: 'audit/recorder.ts',
          why: 'ingest/ imports contract/, schema/, platform/ only, not audit/',
        },
      ]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('each rule, on a fixture edge', () => {
    const refused = (from: string, to: string) => judge({ from, to })?.why;
    // Stages never import each other, nor the assembly, the dev services or the test kit.
    assert.match(refused('reconstruct/api.ts', 'audit/api.ts') ?? '', /not audit\//);
    assert.match(refused('alerts/config.ts', 'services/config.ts') ?? '', /not services\//);
    assert.match(refused('collector/server.ts', 'cli/stack/stack.ts') ?? '', /not cli\//);
    assert.match(refused('ingest/writer.ts', 'testkit/services.ts') ?? '', /not testkit\//);
    // The shared layers only look down: contract <- platform <- schema.
    assert.match(refused('contract/ids.ts', 'platform/clickhouse.ts') ?? '', /nothing outside itself/);
    assert.match(refused('platform/native/encode.ts', 'schema/rows.ts') ?? '', /not schema\//);
    // Tools and the test kit never reach into the tests; the assembly never into the tools.
    assert.match(refused('bench/ingest-throughput.ts', 'test/support/ingest.ts') ?? '', /never imports test\//);
    assert.match(refused('testkit/ingest.ts', 'test/unit/ingest/otlp-payloads.ts') ?? '', /never imports test\//);
    assert.match(refused('cli/commands/up/run.ts', 'demo/run.ts') ?? '', /never imports demo\//);
    // A new top-level folder must be placed in the layout before it can import anything.
    assert.match(refused('newstage/x.ts', 'contract/ids.ts') ?? '', /no place in the layout/);
    // The contract has one entry: a stage never reaches past it into one of its modules.
    assert.match(refused('reconstruct/api.ts', 'contract/ids.ts') ?? '', /through its one entry, contract\/index\.ts/);
    // What is allowed stays allowed.
    for (const [from, to] of [
      ['ingest/writer.ts', 'schema/rows.ts'],
      ['audit/native-entries.ts', 'platform/native/byte-buffer.ts'],
      ['reconstruct/api.ts', 'contract/index.ts'],
      ['contract/attributes.ts', 'contract/codes.ts'],
      ['cli/commands/ingest/run.ts', 'audit/recorder.ts'],
      ['bench/ingest-throughput.ts', 'testkit/ingest.ts'],
      ['test/unit/ingest/flatten.test.ts', 'ingest/flatten.ts'],
      ['mcp-proxy/guard-step.ts', 'instrumentation/index.ts'],
    ] as const) {
      assert.equal(refused(from, to), undefined, `${from} -> ${to}`);
    }
    // The instrumentation package is used through its public entry only.
    assert.match(refused('mcp-proxy/guard-step.ts', 'instrumentation/guard.ts') ?? '', /not instrumentation\//);
  });
});

describe("the CLI's one layout: cli/commands/<command>/ with command.ts and run.ts", () => {
  it('the tree as it is breaks it nowhere', () => {
    assert.deepEqual(checkCliLayout(root), []);
  });

  it('names a command.ts that loads run.ts eagerly, a run.ts that imports command.ts, and a folder without run.ts', () => {
    const tree = mkdtempSync(join(tmpdir(), 'tooltrail-cli-layout-'));
    const write = (path: string, text: string) => {
      mkdirSync(dirname(join(tree, path)), { recursive: true });
      writeFileSync(join(tree, path), text);
    };
    try {
      // The shape every command has: types and a lazy import of run.ts; run.ts on its own.
      write(
        'cli/commands/good/command.ts',
        "import type { F } from './run.ts';\nconst run = () => import('./run.ts');\n",
      );
      write('cli/commands/good/run.ts', 'export interface F { a?: string }\n');
      write('cli/commands/eager/command.ts', "import { go } from './run.ts';\n");
      write('cli/commands/eager/run.ts', "import type { X } from './command.ts';\nimport { y } from './command.ts';\n");
      write('cli/commands/half/command.ts', "const run = () => import('./run.ts');\n");
      assert.deepEqual(checkCliLayout(tree).sort(), [
        "cli/commands/eager/command.ts imports run.ts: load it in the action (`import('./run.ts')`), import its types only",
        "cli/commands/eager/run.ts imports command.ts: run.ts owns its flags' types",
        "cli/commands/eager/run.ts imports command.ts: run.ts owns its flags' types",
        'cli/commands/half/run.ts is missing',
      ]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });
});
