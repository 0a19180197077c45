/**
 * A tool span is never dropped or misfiled silently over a contract mistake, whatever runtime sent it. The mistakes
 * a plain OpenTelemetry SDK user makes (issue 25: the decision field as the string "false", reasons as one
 * comma-separated string, a count as the double 0.0, no `gen_ai.operation.name`) go through the real collector,
 * Kafka and the ingest into ClickHouse: each span is stored as a tool call with the pipeline warning code on its
 * row, partial_success tells the sender without rejecting it, and the mutation that followed the malformed read is
 * judged with that read (critical), not without it. Its page goes to the pages file once, not once per evaluation.
 * A session that carried no gen_ai.conversation.id is named by its trace id, and reconstructs by that name.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { alertsConfigFromEnv, detect } from '../../../alerts/index.ts';
import { type Stack, startStack } from '../../../cli/stack/stack.ts';
import { Attr, EXECUTE_TOOL, GenAi } from '../../../contract/index.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import {
  bytesToHex,
  decodeExportTraceServiceResponse,
  int64ToString,
  type KeyValue,
  type Span,
} from '../../../platform/otlp/index.ts';
import { findingResolverFor, reconstructFinding } from '../../../reconstruct/finding.ts';
import { reconstructSession } from '../../../reconstruct/reconstruct.ts';
import { DEFAULT_RETENTION_DAYS } from '../../../schema/config.ts';
import { attr, bool, int, newTraceId, protobufBody, request, span, str, strs } from '../../../testkit/otlp-requests.ts';
import { requireKafka, services, uniqueName } from '../../../testkit/services.ts';
import { until } from '../../../testkit/wait.ts';
import { body as requestBody } from './harness.ts';

const TOKEN = randomBytes(16).toString('hex');
const TENANT = 'acme';
const database = uniqueName('tt_contract_problems');
let stack: Stack;
let pagesDir: string;

const nowNs = () => BigInt(Date.now()) * 1_000_000n;

/** A tool span as a Python agent writes it with the plain SDK: every attribute set by hand. */
function toolSpan(traceId: Buffer, seq: number, attributes: KeyValue[]): Span {
  const start = nowNs() + BigInt(seq) * 1_000n;
  return span({
    traceId,
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500n),
    attributes: [...attributes, attr(Attr.SESSION_SEQUENCE, int(seq))],
  });
}

async function send(body: Buffer | string, json = false) {
  const res = await fetch(`${stack.collectorUrl}/v1/traces`, {
    method: 'POST',
    body: typeof body === 'string' ? body : requestBody(body),
    headers: {
      'content-type': json ? 'application/json' : 'application/x-protobuf',
      authorization: `Bearer ${TOKEN}`,
    },
  });
  assert.equal(res.status, 200);
  if (json) {
    const out = (await res.json()) as { partialSuccess?: { rejectedSpans?: string | number; errorMessage?: string } };
    return { rejected: String(out.partialSuccess?.rejectedSpans ?? '0'), message: out.partialSuccess?.errorMessage };
  }
  const out = decodeExportTraceServiceResponse(Buffer.from(await res.arrayBuffer()));
  return { rejected: int64ToString(out.partialSuccess?.rejectedSpans), message: out.partialSuccess?.errorMessage };
}

async function rows<T>(ch: ClickHouseClient, query: string, params: Record<string, unknown> = {}): Promise<T[]> {
  const rs = await ch.query({ query, query_params: { db: database, ...params }, format: 'JSONEachRow' });
  return rs.json<T>();
}

/** The session's rows in each table, by the column that names the session there. */
const SESSION_OF: Record<string, string> = {
  tool_calls: "if(session_id = '', trace_id, session_id)",
  tool_call_warnings: "if(session_id = '', trace_id, session_id)",
  detector_arrivals: 'session',
  detector_incomplete_reads: 'session',
  detector_mutations: 'session',
};

/**
 * Waits until each named table holds at least that many rows of the session. The ingest inserts tool_calls and
 * tool_call_warnings in parallel, and the detector tables fill by materialized views after their source rows are
 * visible: a test waits for every table it reads (a detector or evaluator run reads the detector tables).
 */
async function waitForRows(session: string, counts: Record<string, number>): Promise<void> {
  const tables = Object.entries(counts);
  const select = tables
    .map(
      ([t], i) =>
        `(SELECT count() FROM {db:Identifier}.{t${i}:Identifier} WHERE ${SESSION_OF[t]} = {s:String}) AS n${i}`,
    )
    .join(', ');
  const params = Object.fromEntries(tables.map(([t], i) => [`t${i}`, t]));
  let seen: Record<string, string> = {};
  await until(
    `the ingest stored session ${session}'s rows`,
    async () => {
      [seen = {}] = await rows<Record<string, string>>(stack.ch, `SELECT ${select}`, { s: session, ...params });
      return tables.every(([, n], i) => Number(seen[`n${i}`] ?? 0) >= n);
    },
    {
      timeoutMs: 60_000,
      everyMs: 250,
      describe: () => tables.map(([t, n], i) => `${t} ${seen[`n${i}`] ?? 0} of ${n}`).join(', '),
    },
  );
}

describe('contract mistakes of a plain OTel SDK, through the real collector, Kafka and ingest into ClickHouse', () => {
  before(async () => {
    await requireKafka();
    pagesDir = mkdtempSync(join(tmpdir(), 'tt-contract-'));
    stack = await startStack({
      services: { ...services, alertmanager: { ...services.alertmanager, mode: 'local', url: 'http://127.0.0.1:1' } },
      schema: { database, retentionDays: DEFAULT_RETENTION_DAYS },
      mode: 'kafka',
      kafka: { topic: uniqueName('contract_spans'), groupId: uniqueName('contract-ingest') },
      collector: { host: '127.0.0.1', port: 0, tokens: [{ token: TOKEN, tenant: TENANT }] },
      evaluateEverySeconds: 3_600,
      pagesFile: join(pagesDir, 'pages.jsonl'),
      env: process.env,
      log: () => {},
    });
  });
  after(async () => {
    await stack?.stop();
    await stack?.ch.command({ query: `DROP DATABASE IF EXISTS ${database}` }).catch(() => {});
    if (pagesDir) rmSync(pagesDir, { recursive: true, force: true });
  });

  it('keeps a read with a string decision field, string reasons and a double count, flagged, and the mutation after it is critical', async () => {
    const session = `py-mistakes-${randomBytes(3).toString('hex')}`;
    const traceId = newTraceId();
    const read = toolSpan(traceId, 1, [
      attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
      attr(GenAi.TOOL_NAME, str('list_service_accounts')),
      attr(GenAi.TOOL_CALL_ID, str('read-1')),
      attr(GenAi.CONVERSATION_ID, str(session)),
      attr(Attr.EFFECT, str('read')),
      attr(Attr.RESULT_STATUS, str('partial')),
      attr(Attr.RESULT_COMPLETE, str('false')),
      attr(Attr.RESULT_REASONS, str('MORE_PAGES_AVAILABLE,RESULT_LIMIT_REACHED')),
      attr(Attr.RESULT_ITEM_COUNT, { doubleValue: 0 }),
      attr(Attr.RESULT_CONTINUATION, str('next_cursor')),
      attr(Attr.SCOPE_RESOURCE, str('service_accounts')),
      attr(Attr.SCOPE_SNAPSHOT, str('snap-1')),
    ]);
    const mutation = toolSpan(traceId, 2, [
      attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
      attr(GenAi.TOOL_NAME, str('mark_control_compliant')),
      attr(GenAi.TOOL_CALL_ID, str('mut-1')),
      attr(GenAi.CONVERSATION_ID, str(session)),
      attr(Attr.EFFECT, str('mutation')),
      attr(Attr.RESULT_STATUS, str('complete')),
      attr(Attr.RESULT_COMPLETE, bool(true)),
      attr(Attr.SCOPE_RESOURCE, str('service_accounts')),
      attr(Attr.MUTATION_BASIS, str('absence')),
      attr(Attr.MUTATION_TARGET_COUNT, int(1)),
      attr(Attr.MUTATION_EVIDENCE_SNAPSHOTS, strs('snap-1')),
      attr(Attr.MUTATION_EVIDENCE_CALL_IDS, strs('read-1')),
    ]);
    const answer = await send(protobufBody(request([read, mutation])));
    assert.equal(answer.rejected, '0', 'nothing rejected');
    assert.equal(
      answer.message,
      `kept 1 of 2 spans with contract problems, stored flagged: span ${bytesToHex(read.spanId)} of trace ${bytesToHex(traceId)}: ` +
        `${Attr.RESULT_COMPLETE} must be bool, got string "false"; completeness counted as unknown; ` +
        `${Attr.RESULT_REASONS} must be string[], got string "MORE_PAGES_AVAILABLE,RESULT_LIMIT_REACHED"; stored as ["MORE_PAGES_AVAILABLE","RESULT_LIMIT_REACHED"]; ` +
        `${Attr.RESULT_ITEM_COUNT} must be int, got double 0; stored as 0`,
    );

    await waitForRows(session, {
      tool_calls: 2,
      tool_call_warnings: 3,
      detector_incomplete_reads: 1,
      detector_mutations: 1,
    });
    const [stored] = await rows<Record<string, unknown>>(
      stack.ch,
      `SELECT complete_reported, result_complete, result_reasons, result_item_count, warnings, attributes
       FROM {db:Identifier}.tool_calls WHERE session_id = {s:String} AND tool_call_id = 'read-1'`,
      { s: session },
    );
    assert.equal(stored?.complete_reported, false, 'completeness unknown, not false');
    assert.deepEqual(stored?.result_reasons, ['MORE_PAGES_AVAILABLE', 'RESULT_LIMIT_REACHED']);
    assert.equal(Number(stored?.result_item_count), 0);
    assert.deepEqual(stored?.warnings, ['INVALID_CONTRACT_ATTRIBUTE', 'CONTRACT_ATTRIBUTE_COERCED']);
    assert.equal((stored?.attributes as Record<string, string> | undefined)?.[Attr.RESULT_COMPLETE], 'false');
    const flags = await rows<{ code: string; source: string; message: string }>(
      stack.ch,
      `SELECT code, source, message FROM {db:Identifier}.tool_call_warnings
       WHERE session_id = {s:String} ORDER BY source`,
      { s: session },
    );
    assert.deepEqual(
      flags.map((f) => [f.code, f.source]),
      [
        ['INVALID_CONTRACT_ATTRIBUTE', Attr.RESULT_COMPLETE],
        ['CONTRACT_ATTRIBUTE_COERCED', Attr.RESULT_ITEM_COUNT],
        ['CONTRACT_ATTRIBUTE_COERCED', Attr.RESULT_REASONS],
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
    assert.ok(finding, `a mutation_after_incomplete_read finding for ${session}: ${JSON.stringify(findings)}`);
    assert.equal(finding.severity, 'critical', 'judged with its incomplete, empty read');
  });

  it('writes one line per page event to the pages file, not one per evaluation', async () => {
    // The finding of the test above fires; three evaluations keep it alive, and it is paged once.
    for (let i = 0; i < 3; i++) await stack.evaluator.runOnce();
    const lines = readFileSync(join(pagesDir, 'pages.jsonl'), 'utf8').trim().split('\n');
    const alerts = lines.map((l) => JSON.parse(l) as { labels: Record<string, string> });
    const keys = alerts.map((a) => a.labels.fingerprint ?? JSON.stringify(a.labels));
    assert.ok(
      alerts.some((a) => a.labels.alertname === 'MutationAfterIncompleteRead'),
      `the finding was paged: ${lines.length} lines`,
    );
    assert.equal(new Set(keys).size, keys.length, `each alert once: ${keys.join(', ')}`);
  });

  it('reconstructs a session named by its trace id (no gen_ai.conversation.id) by that name, and by its finding', async () => {
    const traceId = newTraceId();
    const calls = [
      toolSpan(traceId, 1, [
        attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
        attr(GenAi.TOOL_NAME, str('list_orphans')),
        attr(Attr.EFFECT, str('read')),
        attr(Attr.RESULT_COMPLETE, bool(false)),
        attr(Attr.RESULT_REASONS, strs('MORE_PAGES_AVAILABLE')),
        attr(Attr.RESULT_ITEM_COUNT, int(0)),
        attr(Attr.SCOPE_RESOURCE, str('orphans')),
      ]),
      toolSpan(traceId, 2, [
        attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
        attr(GenAi.TOOL_NAME, str('delete_orphans')),
        attr(Attr.EFFECT, str('mutation')),
        attr(Attr.SCOPE_RESOURCE, str('orphans')),
        attr(Attr.MUTATION_BASIS, str('absence')),
        attr(Attr.MUTATION_TARGET_COUNT, int(3)),
      ]),
    ];
    assert.equal((await send(protobufBody(request(calls)))).message, undefined, 'nothing to say');
    const trace = bytesToHex(traceId);
    await waitForRows(trace, {
      tool_calls: 2,
      detector_arrivals: 1,
      detector_incomplete_reads: 1,
      detector_mutations: 1,
    });
    await stack.evaluator.runOnce();
    const [finding] = await rows<{ fingerprint: string; session_id: string }>(
      stack.ch,
      `SELECT fingerprint, session_id FROM {db:Identifier}.findings
       WHERE trace_id = {t:String} AND kind = 'mutation_after_incomplete_read' LIMIT 1`,
      { t: trace },
    );
    assert.ok(finding, 'the mutation is a finding');
    assert.equal(finding.session_id, trace, 'the finding names the session by its trace id');
    const schema = { database, retentionDays: DEFAULT_RETENTION_DAYS };
    const bySession = await reconstructSession(stack.ch, schema, { tenant: TENANT, session: trace });
    assert.deepEqual(
      bySession.sessions.flatMap((t) => t.entries.flatMap((e) => (e.kind === 'call' ? [e.tool_name] : []))),
      ['list_orphans', 'delete_orphans'],
    );
    const byFinding = await reconstructFinding(
      stack.ch,
      schema,
      findingResolverFor(stack.ch, schema),
      finding.fingerprint,
    );
    assert.equal(byFinding.sessions.length, 1);
    assert.equal(byFinding.finding?.session_id, trace);
  });

  it('stores a span without gen_ai.operation.name but with the tool contract as a tool call, flagged (OTLP/JSON)', async () => {
    const session = `py-no-op-${randomBytes(3).toString('hex')}`;
    const traceId = newTraceId();
    const spanId = randomBytes(8);
    const start = nowNs();
    const json = {
      resourceSpans: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'python-agent' } }] },
          scopeSpans: [
            {
              scope: { name: 'agent' },
              spans: [
                {
                  traceId: traceId.toString('hex'),
                  spanId: spanId.toString('hex'),
                  name: 'list_accounts',
                  kind: 1,
                  startTimeUnixNano: String(start),
                  endTimeUnixNano: String(start + 1_000n),
                  attributes: [
                    { key: GenAi.TOOL_NAME, value: { stringValue: 'list_accounts' } },
                    { key: GenAi.CONVERSATION_ID, value: { stringValue: session } },
                    { key: Attr.EFFECT, value: { stringValue: 'read' } },
                    { key: Attr.RESULT_COMPLETE, value: { boolValue: false } },
                    { key: Attr.RESULT_ITEM_COUNT, value: { intValue: '0' } },
                  ],
                },
              ],
            },
          ],
        },
      ],
    };
    const answer = await send(JSON.stringify(json), true);
    assert.equal(answer.rejected, '0');
    assert.match(answer.message ?? '', /gen_ai\.operation\.name is absent; stored as a tool call/);
    await waitForRows(session, { tool_calls: 1 });
    const [stored] = await rows<{ tool_name: string; effect: string; warnings: string[] }>(
      stack.ch,
      'SELECT tool_name, effect, warnings FROM {db:Identifier}.tool_calls WHERE session_id = {s:String}',
      { s: session },
    );
    assert.deepEqual(stored, { tool_name: 'list_accounts', effect: 'read', warnings: ['TOOL_SPAN_INFERRED'] });
    const [other] = await rows<{ n: string }>(
      stack.ch,
      'SELECT count() AS n FROM {db:Identifier}.spans WHERE SpanId = {id:String}',
      { id: spanId.toString('hex') },
    );
    assert.equal(Number(other?.n), 0, 'not filed among the other spans');
  });
});
