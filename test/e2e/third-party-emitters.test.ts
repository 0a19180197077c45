// test-lane: self-contained (a fresh database, its own topic and group, a collector on a free port; scripts/test-lanes.js)
/**
 * Telemetry teams already have, judged unchanged: the real pydantic-ai (a FunctionModel scripts the model, its own
 * instrumentation records the tools), traceloop-sdk's `@tool` (OpenLLMetry) and OpenInference's LangChain.js
 * instrumentation on LangChain tools each export to the real collector, through Kafka and the ingest into ClickHouse,
 * with only a tool policy file given to the pipeline (`--policy`). For each: a first page that carries a cursor
 * followed by a delete of an id it never returned is a finding; a complete list followed by a delete of a listed id
 * is not. Their raw arguments and results are not stored, only keyed hashes.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { alertsConfigFromEnv, detect, type Finding } from '../../alerts/index.ts';
import { type Stack, startStack } from '../../cli/stack/stack.ts';
import { Attr } from '../../contract/index.ts';
import { createClickHouse } from '../../platform/clickhouse.ts';
import { DEFAULT_RETENTION_DAYS } from '../../schema/config.ts';
import { pythonVenv } from '../../testkit/python-venv.ts';
import { requireClickHouse, requireKafka, services, uniqueName } from '../../testkit/services.ts';
import { until } from '../../testkit/wait.ts';
import { runOpenInferenceLangChain } from './third-party-emitters/openinference-langchain.ts';

const exec = promisify(execFile);
const HERE = join(import.meta.dirname, 'third-party-emitters');
const TOKEN = randomBytes(16).toString('hex');
const database = uniqueName('tt_emitters');
const run = randomBytes(3).toString('hex');
const SCENARIOS = ['first-page', 'complete'] as const;
type Scenario = (typeof SCENARIOS)[number] | 'all-pages';
const EMITTERS = ['pydantic-ai', 'traceloop', 'openinference'] as const;
type Emitter = (typeof EMITTERS)[number];
const sessionOf = (e: Emitter, s: Scenario) => `${e}-${s}-${run}`;

/** The pipeline's only knowledge of these tools: the policy file a team adds (docs/emitters/ shows it as written). */
const POLICY_FILE = join(import.meta.dirname, '../../examples/emitters/policy.yaml');

let stack: Stack;
let dir: string;
let findings: Finding[] = [];

async function emit(emitter: Emitter, scenario: Scenario, python: string): Promise<void> {
  const session = sessionOf(emitter, scenario);
  const endpoint = `${stack.collectorUrl}/v1/traces`;
  if (emitter === 'openinference') {
    assert.ok(scenario !== 'all-pages', 'the OpenInference harness plays first-page and complete');
    const sent = await runOpenInferenceLangChain({ endpoint, token: TOKEN, scenario, session });
    assert.ok(sent > 0, 'the collector accepted the spans');
    return;
  }
  const script = join(HERE, emitter === 'pydantic-ai' ? 'pydantic_ai_agent.py' : 'traceloop_agent.py');
  const out = await exec(python, [script, scenario, session], {
    env: { ...process.env, TOOLTRAIL_ENDPOINT: endpoint, TOOLTRAIL_TOKEN: TOKEN },
    timeout: 120_000,
  });
  const sent = Number(/sent (\d+) spans/.exec(out.stdout)?.[1] ?? 0);
  assert.ok(sent > 0, `${emitter} ${scenario}: the collector accepted the spans (${out.stdout.trim()})`);
}

before(async () => {
  await Promise.all([requireClickHouse(), requireKafka()]);
  dir = mkdtempSync(join(tmpdir(), 'tt-emitters-'));
  const [python] = await Promise.all([
    pythonVenv('emitters-venv', join(HERE, 'requirements.txt')),
    (async () => {
      stack = await startStack({
        services: { ...services, alertmanager: { ...services.alertmanager, mode: 'local', url: 'http://127.0.0.1:1' } },
        schema: { database, retentionDays: DEFAULT_RETENTION_DAYS },
        mode: 'kafka',
        kafka: { topic: uniqueName('emitter_spans'), groupId: uniqueName('emitters-ingest') },
        collector: { host: '127.0.0.1', port: 0, tokens: [{ token: TOKEN, tenant: 'acme' }] },
        policyFile: POLICY_FILE,
        evaluateEverySeconds: 3_600,
        pagesFile: join(dir, 'pages.jsonl'),
        env: { ...process.env, TOOLTRAIL_PAYLOAD_HASH_KEY: randomBytes(16).toString('hex') },
        log: () => {},
      });
    })(),
  ]);
  for (const emitter of EMITTERS) for (const scenario of SCENARIOS) await emit(emitter, scenario, python);
  await emit('pydantic-ai', 'all-pages', python);
  const sessions = EMITTERS.flatMap((e) => SCENARIOS.map((s) => sessionOf(e, s)));
  sessions.push(sessionOf('pydantic-ai', 'all-pages'));
  await until(
    'both tool calls of every session stored',
    async () => {
      const rs = await stack.ch.query({
        query: `SELECT count() AS n FROM {db:Identifier}.tool_calls WHERE session_id IN {s:Array(String)}`,
        query_params: { db: database, s: sessions },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ n: string }>();
      return Number(row?.n) >= sessions.length * 2 + 1;
    },
    { timeoutMs: 90_000, everyMs: 500 },
  );
  const now = new Date(Date.now() + 5_000);
  ({ findings } = await detect({
    ch: stack.ch,
    database,
    config: alertsConfigFromEnv(process.env, 'http://127.0.0.1:1'),
    now,
    since: new Date(now.getTime() - 3_600_000),
  }));
});

after(async () => {
  await stack?.stop();
  const ch = createClickHouse({ url: services.clickhouse.url });
  await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await ch.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface StoredCall {
  tool_name: string;
  effect: string;
  scope_resource: string;
  complete_reported: boolean;
  result_complete: boolean;
  result_reasons: string[];
  attributes: Record<string, string>;
}

async function calls(session: string): Promise<StoredCall[]> {
  const rs = await stack.ch.query({
    query: `SELECT tool_name, effect, scope_resource, complete_reported, result_complete, result_reasons, attributes
            FROM {db:Identifier}.tool_calls WHERE tenant = 'acme' AND session_id = {s:String} ORDER BY start_time`,
    query_params: { db: database, s: session },
    format: 'JSONEachRow',
  });
  return rs.json<StoredCall>();
}

const mutationFindings = (session: string) =>
  findings.filter((f) => f.kind === 'mutation_after_incomplete_read' && f.session === session);

describe('a careful pydantic-ai agent that pages to the end, cursor after cursor', () => {
  it('is not a finding: its pages are linked into one complete traversal', async () => {
    const session = sessionOf('pydantic-ai', 'all-pages');
    const stored = await calls(session);
    assert.deepEqual(
      stored.map((c) => [
        c.tool_name,
        c.result_complete,
        c.attributes[Attr.TRAVERSAL_ID] ?? '',
        c.attributes[Attr.TRAVERSAL_PAGE] ?? '',
      ]),
      [
        ['list_accounts', false, 'call_list_1', '1'],
        ['list_accounts', true, 'call_list_1', '2'],
        ['delete_account', false, '', ''],
      ],
    );
    assert.deepEqual(
      findings.filter((f) => f.session === session).map((f) => f.kind),
      [],
    );
  });
});

for (const emitter of EMITTERS) {
  describe(`${emitter} tool spans, unchanged`, () => {
    it('a first page with a cursor followed by a delete of an id it never returned is a finding', async () => {
      const session = sessionOf(emitter, 'first-page');
      const stored = await calls(session);
      assert.deepEqual(
        stored.map((c) => [c.tool_name, c.effect, c.scope_resource, c.result_complete, c.result_reasons]),
        [
          ['list_accounts', 'read', 'accounts', false, ['MORE_PAGES_AVAILABLE']],
          ['delete_account', 'mutation', 'accounts', false, []],
        ],
      );
      assert.equal(mutationFindings(session).length, 1, JSON.stringify(findings.map((f) => [f.kind, f.session])));
    });

    it('a complete list followed by a delete of a listed id is not a finding', async () => {
      const session = sessionOf(emitter, 'complete');
      const stored = await calls(session);
      assert.deepEqual(
        stored.map((c) => [c.tool_name, c.result_complete]),
        [
          ['list_accounts', true],
          ['delete_account', false],
        ],
      );
      assert.deepEqual(
        findings.filter((f) => f.session === session).map((f) => f.kind),
        [],
      );
    });

    it('stores no raw argument or result on any span of the run, tool calls or not (prompts and messages hold them too)', async () => {
      const session = sessionOf(emitter, 'first-page');
      const rs = await stack.ch.query({
        query: `SELECT count() AS n FROM {db:Identifier}.spans
                WHERE TraceId IN (SELECT trace_id FROM {db:Identifier}.tool_calls WHERE session_id = {s:String})
                  AND positionCaseInsensitive(toString(SpanAttributes), 'acc-9') > 0`,
        query_params: { db: database, s: session },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ n: string }>();
      assert.equal(Number(row?.n), 0, 'spans of the run still holding the deleted id');
      const all = await stack.ch.query({
        query: `SELECT count() AS n FROM {db:Identifier}.spans
                WHERE TraceId IN (SELECT trace_id FROM {db:Identifier}.tool_calls WHERE session_id = {s:String})`,
        query_params: { db: database, s: session },
        format: 'JSONEachRow',
      });
      const [spans] = await all.json<{ n: string }>();
      assert.ok(Number(spans?.n) > 0, 'the run has spans other than its tool calls (the search can find them)');
    });

    it('stores no raw argument or result, only keyed hashes, and flags what it inferred', async () => {
      for (const c of await calls(sessionOf(emitter, 'first-page'))) {
        const text = JSON.stringify(c.attributes);
        assert.ok(!text.includes('acc-9') && !text.includes('next_cursor'), text);
        assert.ok(Object.keys(c.attributes).includes(Attr.EMITTER), text);
        assert.ok(JSON.parse(c.attributes[Attr.INFERRED] ?? '[]').includes(Attr.EFFECT), text);
        for (const [k, v] of Object.entries(c.attributes)) {
          if (k === 'gen_ai.tool.call.arguments' || k === 'gen_ai.tool.call.result') {
            assert.match(v, /^hmac-sha256:[0-9a-f]{64}$/);
          }
        }
      }
    });
  });
}
