// test-lane: self-contained (a fresh database, a collector on a free port, pages to a file of its own; scripts/test-lanes.js)
/**
 * The README's Python example (examples/python/agent.py) runs as written against the real collector and ClickHouse,
 * with the real OpenTelemetry Python SDK installed from PyPI (examples/python/requirements.txt) into a virtual
 * environment cached under the services home (rebuilt when the requirements change). Its mutation is found
 * critical, and its deliberate mistake (a float count) is stored coerced and flagged, not dropped.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { alertsConfigFromEnv, detect } from '../../alerts/index.ts';
import { type Stack, startStack } from '../../cli/stack/stack.ts';
import { DEFAULT_RETENTION_DAYS } from '../../schema/config.ts';
import { pythonVenv } from '../../testkit/python-venv.ts';
import { services, uniqueName } from '../../testkit/services.ts';

const run = promisify(execFile);
const EXAMPLE = new URL('../../examples/python/', import.meta.url).pathname;
const REQUIREMENTS = join(EXAMPLE, 'requirements.txt');
const TOKEN = randomBytes(16).toString('hex');
const database = uniqueName('tt_python_example');
let stack: Stack;
let pagesDir: string;

before(async () => {
  pagesDir = mkdtempSync(join(tmpdir(), 'tt-python-'));
  stack = await startStack({
    // The shared ClickHouse as the user's own (used, never started or stopped); pages to a file of this test.
    services: {
      ...services,
      clickhouse: { ...services.clickhouse, mode: 'external' },
      alertmanager: { ...services.alertmanager, mode: 'local', url: 'http://127.0.0.1:1' },
    },
    schema: { database, retentionDays: DEFAULT_RETENTION_DAYS },
    mode: 'direct',
    collector: { host: '127.0.0.1', port: 0, tokens: [{ token: TOKEN, tenant: 'acme' }] },
    evaluateEverySeconds: 3_600,
    pagesFile: join(pagesDir, 'pages.jsonl'),
    env: process.env,
    log: () => {},
  });
});

after(async () => {
  await stack?.stop();
  if (pagesDir) rmSync(pagesDir, { recursive: true, force: true });
});

test('the Python example, with the real OpenTelemetry SDK, gives a critical finding and a flagged coerced count', async () => {
  const py = await pythonVenv('python-venv', REQUIREMENTS);
  const session = `py-example-${randomBytes(3).toString('hex')}`;
  const out = await run(py, [join(EXAMPLE, 'agent.py'), session], {
    env: { ...process.env, TOOLTRAIL_ENDPOINT: `${stack.collectorUrl}/v1/traces`, TOOLTRAIL_TOKEN: TOKEN },
    timeout: 60_000,
  });
  assert.match(out.stdout, new RegExp(`session ${session}: 2 tool calls sent`));
  assert.match(out.stdout, new RegExp(`tooltrail reconstruct --session ${session}`));

  const rs = await stack.ch.query({
    query: `SELECT tool_call_id, result_item_count, warnings FROM {db:Identifier}.tool_calls
            WHERE tenant = 'acme' AND session_id = {s:String} ORDER BY sequence`,
    query_params: { db: database, s: session },
    format: 'JSONEachRow',
  });
  const rows = await rs.json<{ tool_call_id: string; result_item_count: string | null; warnings: string[] }>();
  assert.deepEqual(
    rows.map((r) => [r.tool_call_id, r.result_item_count === null ? null : Number(r.result_item_count), r.warnings]),
    [
      ['read-1', 0, ['CONTRACT_ATTRIBUTE_COERCED']],
      ['mut-1', null, []],
    ],
  );

  const now = new Date(Date.now() + 5_000);
  const { findings } = await detect({
    ch: stack.ch,
    database,
    config: alertsConfigFromEnv(process.env, 'http://127.0.0.1:1'),
    now,
    since: new Date(now.getTime() - 3_600_000),
  });
  const finding = findings.find((f) => f.kind === 'mutation_after_incomplete_read' && f.session === session);
  assert.ok(finding, `the mutation is a finding: ${JSON.stringify(findings.map((f) => [f.kind, f.session]))}`);
  assert.equal(finding.severity, 'critical');
});
