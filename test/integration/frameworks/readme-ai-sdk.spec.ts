/**
 * The README's AI SDK example runs as written, with `model` (the ai/test mock model, scripted to read then disable)
 * and `iam` (a list where one region did not answer) defined before it: the disable is refused and the model's next
 * prompt carries the refusal. Run under Node 22 by frameworks.test.ts.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));

const PREAMBLE = `
import { MockLanguageModelV4 } from 'ai/test';
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined }, outputTokens: { total: 1, text: 1, reasoning: undefined } };
const step = (content, unified) => ({ content, finishReason: { unified, raw: undefined }, usage, warnings: [] });
const model = new MockLanguageModelV4({ doGenerate: [
  step([{ type: 'tool-call', toolCallId: 'c1', toolName: 'list_unowned_accounts', input: '{}' }], 'tool-calls'),
  step([{ type: 'tool-call', toolCallId: 'c2', toolName: 'disable_accounts', input: '{"ids":["svc-184"]}' }], 'tool-calls'),
  step([{ type: 'text', text: 'done' }], 'stop'),
] });
const disabled = [];
const iam = {
  listUnowned: async () => ({ accounts: [{ id: 'svc-184' }], unreachable: ['projects/acme/locations/europe-west1'] }),
  disable: async (ids) => { disabled.push(...ids); return { disabled: ids }; },
};
`;

const POSTAMBLE = `
const refusal = steps[1].toolResults[0].output;
console.log(JSON.stringify({ disabled, refusal, calls: model.doGenerateCalls.length }));
`;

test('the README AI SDK example runs as written: the disable after an incomplete read is refused, the model gets why', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const code = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)]
    .map((m) => m[1] ?? '')
    .find((block) => block.includes("'@tooltrail/instrumentation/ai-sdk'"));
  assert.ok(code, 'the README has the AI SDK example');
  const entry = (p: string) => pathToFileURL(join(root, p)).href;
  const body = code
    .replace("'@tooltrail/instrumentation/ai-sdk'", `'${entry('instrumentation/frameworks/ai-sdk.ts')}'`)
    .replace("'@tooltrail/instrumentation'", `'${entry('instrumentation/index.ts')}'`);
  const imports = body.split('\n').filter((l) => l.startsWith('import '));
  const rest = body.split('\n').filter((l) => !l.startsWith('import '));
  // Inside the repo's node_modules, so that the example's bare imports (ai, zod) resolve as they would for a user.
  const dir = mkdtempSync(join(root, 'node_modules', '.tooltrail-readme-'));
  try {
    const file = join(dir, 'example.mts');
    writeFileSync(file, [...imports, PREAMBLE, ...rest, POSTAMBLE].join('\n'));
    const r = spawnSync(process.execPath, ['--import', 'tsx', file], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1) ?? '{}') as {
      disabled: string[];
      refusal: { tooltrail_guard: string; findings: { code: string }[] };
      calls: number;
    };
    assert.deepEqual(out.disabled, []);
    assert.equal(out.refusal.tooltrail_guard, 'refused');
    assert.ok(out.refusal.findings.some((f) => f.code === 'EVIDENCE_INCOMPLETE'));
    assert.equal(out.calls, 3);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
