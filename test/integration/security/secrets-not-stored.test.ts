/**
 * Secrets in tool arguments and results never reach storage unless a tool explicitly opts a field in. Real tool
 * calls full of secret-looking values go the production path: instrumentation -> OTLP/HTTP exporter -> collector
 * (bearer token) -> Kafka -> ingest -> ClickHouse; then every column of every table of the database is searched
 * for each secret. The opted-in control (a `raw` field) is found by the same search, so the search can fail.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { BatchSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { type Stack, startStack } from '../../../cli/stack/stack.ts';
import { completeResult, createTooltrail } from '../../../instrumentation/index.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { DEFAULT_RETENTION_DAYS } from '../../../schema/config.ts';
import { requireClickHouse, requireKafka, services, uniqueName } from '../../../testkit/services.ts';
import { until } from '../../../testkit/wait.ts';

const run = randomBytes(6).toString('hex');
/** Each secret carries a marker unique to this run, searched for case-insensitively. */
const mark = (n: string) => `ttsec${run}${n}`;
const SECRETS = {
  apiKey: `sk-proj-${mark('apikey')}AbCdEfGhIjKlMnOpQrSt`,
  bearer: `Bearer eyJhbGciOiJIUzI1NiJ9.${mark('jwt')}.c2lnbmF0dXJl`,
  password: `hunter2-${mark('password')}!`,
  awsAccessKeyId: `AKIA${mark('awsid').toUpperCase()}`,
  awsSecret: `wJalrXUtnFEMI/K7MDENG/${mark('awssecret')}`,
  privateKey: `-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA${mark('privkey')}\n-----END RSA PRIVATE KEY-----`,
  githubToken: `ghp_${mark('github')}0123456789`,
  connectionString: `postgres://admin:${mark('dbpass')}@db.internal:5432/prod`,
} as const;
/** Opted in as `raw` by one tool: must be found (the search works). */
const ALLOWED_RAW = `hunter2-${mark('allowedraw')}`;
/** Opted in as `hash` by the same tool: only its hash may be stored. */
const ALLOWED_HASH = `sk-${mark('allowedhash')}`;
const MARKERS = ['apikey', 'jwt', 'password', 'awsid', 'awssecret', 'privkey', 'github', 'dbpass', 'allowedhash'].map(
  mark,
);

const TOKEN = randomBytes(16).toString('hex');
const database = uniqueName('tt_sec_secrets');
const group = uniqueName('sec-ingest');
let stack: Stack;
let pagesDir: string;

async function waitForIngest(ch: ClickHouseClient, atLeast: number): Promise<void> {
  await until(
    `the ingest stored ${atLeast} tool calls, no batch in flight`,
    async () => {
      const rs = await ch.query({
        query: `SELECT (SELECT count() FROM {db:Identifier}.tool_calls) AS n,
                     (SELECT count() FROM {db:Identifier}.ingest_batches FINAL
                      WHERE consumer_group = {group:String} AND state = 0) AS in_flight`,
        query_params: { db: database, group },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ n: string | number; in_flight: string | number }>();
      return Number(row?.n ?? 0) >= atLeast && Number(row?.in_flight ?? 1) === 0;
    },
    { timeoutMs: 60_000, everyMs: 250 },
  );
}

/** needle (lowercase) -> every `table.column` of the database holding it. */
async function search(ch: ClickHouseClient, needles: string[]): Promise<Map<string, string[]>> {
  const rs = await ch.query({
    query: `SELECT table, groupArray(name) AS columns FROM system.columns
            WHERE database = {db:String}
              AND table IN (SELECT name FROM system.tables WHERE database = {db:String} AND engine NOT LIKE '%View')
            GROUP BY table ORDER BY table`,
    query_params: { db: database },
    format: 'JSONEachRow',
  });
  const tables = await rs.json<{ table: string; columns: string[] }>();
  assert.ok(tables.length >= 5, `tables found: ${tables.map((t) => t.table).join(', ')}`);
  const found = new Map<string, string[]>();
  for (const { table, columns } of tables) {
    const select = columns
      .map(
        (c, i) =>
          `groupUniqArrayArray(arrayFilter(n -> positionCaseInsensitive(toString(${quote(c)}), n) > 0, {needles:Array(String)})) AS c${i}`,
      )
      .join(', ');
    const r = await ch.query({
      query: `SELECT ${select} FROM {db:Identifier}.${quote(table)}`,
      query_params: { db: database, needles },
      format: 'JSONEachRow',
    });
    const [row] = await r.json<Record<string, string[]>>();
    columns.forEach((c, i) => {
      for (const n of row?.[`c${i}`] ?? []) found.set(n, [...(found.get(n) ?? []), `${table}.${c}`]);
    });
  }
  return found;
}
const quote = (name: string) => `\`${name.replace(/`/g, '``')}\``;

before(async () => {
  await Promise.all([requireClickHouse(), requireKafka()]);
  pagesDir = mkdtempSync(join(tmpdir(), 'tt-sec-pages-'));
  stack = await startStack({
    // No Alertmanager: whatever the evaluator finds goes to a file in a temporary directory.
    services: { ...services, alertmanager: { ...services.alertmanager, mode: 'local', url: 'http://127.0.0.1:1' } },
    schema: { database, retentionDays: DEFAULT_RETENTION_DAYS },
    mode: 'kafka',
    kafka: { topic: uniqueName('sec_spans'), groupId: group },
    collector: { host: '127.0.0.1', port: 0, tokens: [{ token: TOKEN, tenant: 'acme' }] },
    evaluateEverySeconds: 3_600,
    pagesFile: join(pagesDir, 'pages.jsonl'),
    env: process.env,
    log: () => {},
  });
  const provider = new TracerProvider({
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({
          url: `${stack.collectorUrl}/v1/traces`,
          headers: { authorization: `Bearer ${TOKEN}` },
        }),
      }),
    ],
  });
  const tt = createTooltrail({ tracerProvider: provider });
  const session = tt.session({ conversationId: `sec-${run}`, agentName: 'secret-handler' });
  const args = {
    apiKey: SECRETS.apiKey,
    headers: { authorization: SECRETS.bearer },
    login: { user: 'admin', password: SECRETS.password },
    aws: { accessKeyId: SECRETS.awsAccessKeyId, secretAccessKey: SECRETS.awsSecret },
    keys: [SECRETS.privateKey, SECRETS.githubToken],
    dsn: SECRETS.connectionString,
  };
  const fetchCredentials = tt.readTool('fetch_credentials', async (_: typeof args) =>
    completeResult({ items: [{ id: 'cred-1', ...args }] }),
  );
  const read = await fetchCredentials(session, args);
  const rotate = tt.mutationTool('rotate_credentials', async (a: typeof args & { ids: string[] }) =>
    completeResult({ items: a.ids.map((id) => ({ id, newSecret: SECRETS.apiKey })) }),
  );
  await rotate(session, { ...args, ids: ['cred-1'] }, { basis: 'presence', targets: ['cred-1'], evidence: [read] });
  const audited = tt.readTool(
    { name: 'login_audited', record: { arguments: { password: 'raw', apiKey: 'hash' } } },
    async (_: { user: string; password: string; apiKey: string }) => completeResult({ items: [] }),
  );
  await audited(session, { user: 'auditor', password: ALLOWED_RAW, apiKey: ALLOWED_HASH });
  await provider.shutdown();
  await waitForIngest(stack.ch, 3);
});

after(async () => {
  await stack?.stop();
  const ch = (await import('../../../platform/clickhouse.ts')).createClickHouse({ url: services.clickhouse.url });
  await ch.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await ch.close();
  if (pagesDir) rmSync(pagesDir, { recursive: true, force: true });
});

describe('secrets in tool arguments and results', () => {
  it('the calls were stored (the search looks at the rows they made)', async () => {
    const rs = await stack.ch.query({
      query: 'SELECT tool_name AS tool FROM {db:Identifier}.tool_calls ORDER BY tool',
      query_params: { db: database },
      format: 'JSONEachRow',
    });
    assert.deepEqual(
      (await rs.json<{ tool: string }>()).map((r) => r.tool),
      ['fetch_credentials', 'login_audited', 'rotate_credentials'],
    );
  });

  it('no secret in arguments or results is stored in any column of any table', async () => {
    for (const value of Object.values(SECRETS)) {
      assert.ok(
        MARKERS.some((m) => value.toLowerCase().includes(m)),
        `a marker is searched for ${value}`,
      );
    }
    const found = await search(stack.ch, MARKERS);
    assert.deepEqual(Object.fromEntries(found), {});
  });

  it('a field opted in as raw is stored as is, and one opted in as hash only as its hash', async () => {
    const found = await search(stack.ch, [mark('allowedraw'), mark('allowedhash')]);
    assert.ok(found.get(mark('allowedraw'))?.length, 'the raw opt-in is stored (the search finds what is there)');
    assert.equal(found.get(mark('allowedhash')), undefined);
  });
});
