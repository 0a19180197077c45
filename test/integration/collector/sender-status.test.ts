/**
 * The sender is told, and so is whoever runs `tooltrail status` (issue 25). Through the real collector, Kafka, the
 * ingest and ClickHouse: a span kept flagged over a malformed contract attribute and a span rejected outright both
 * show in `tooltrail status`, per tenant and reason with an example span id, within the read scope; the collector
 * tells each reason once per minute per tenant; `findings` for a tenant with no data says so on stderr.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Command } from 'commander';
import { systemClock } from '../../../alerts/index.ts';
import { registerAlertsCommands } from '../../../cli/commands/alerts/command.ts';
import { registerStatusCommand } from '../../../cli/commands/status/command.ts';
import type { StatusReport } from '../../../cli/commands/status/run.ts';
import { type Stack, startStack } from '../../../cli/stack/stack.ts';
import { Attr, EXECUTE_TOOL, GenAi } from '../../../contract/index.ts';
import {
  bytesToHex,
  decodeExportTraceServiceResponse,
  int64ToString,
  type Span,
} from '../../../platform/otlp/index.ts';
import { DEFAULT_RETENTION_DAYS } from '../../../schema/config.ts';
import { attr, int, newTraceId, protobufBody, request, span, str } from '../../../testkit/otlp-requests.ts';
import { requireKafka, services, uniqueName } from '../../../testkit/services.ts';
import { until } from '../../../testkit/wait.ts';
import { body as requestBody } from './harness.ts';

const ACME_TOKEN = randomBytes(16).toString('hex');
const GLOBEX_TOKEN = randomBytes(16).toString('hex');
const METRICS_TOKEN = randomBytes(16).toString('hex');
const ACME_READER = `acme-reader-${randomBytes(8).toString('hex')}`;
const GLOBEX_READER = `globex-reader-${randomBytes(8).toString('hex')}`;
const database = uniqueName('tt_sender_status');
let stack: Stack;
let dir: string;
const collectorLog: string[] = [];

const nowNs = () => BigInt(Date.now()) * 1_000_000n;

/** A read whose decision field is the string "false": kept, flagged INVALID_CONTRACT_ATTRIBUTE. */
function flaggedRead(session: string): Span {
  const start = nowNs();
  return span({
    traceId: newTraceId(),
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500n),
    attributes: [
      attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
      attr(GenAi.TOOL_NAME, str('list_service_accounts')),
      attr(GenAi.TOOL_CALL_ID, str(`read-${randomBytes(3).toString('hex')}`)),
      attr(GenAi.CONVERSATION_ID, str(session)),
      attr(Attr.EFFECT, str('read')),
      attr(Attr.RESULT_COMPLETE, str('false')),
      attr(Attr.SESSION_SEQUENCE, int(1)),
    ],
  });
}

/** Another emitter's tool call (GenAI conventions, no tooltrail attribute) of a tool no policy names. */
function unknownEffectCall(session: string): Span {
  const start = nowNs();
  return span({
    traceId: newTraceId(),
    startTimeUnixNano: String(start),
    endTimeUnixNano: String(start + 500n),
    attributes: [
      attr(GenAi.OPERATION_NAME, str(EXECUTE_TOOL)),
      attr(GenAi.TOOL_NAME, str('purge_tickets')),
      attr(GenAi.CONVERSATION_ID, str(session)),
    ],
  });
}

/** A span that ends before it starts: rejected (invalid_timestamps), never stored. */
function rejectedSpan(): Span {
  const start = nowNs();
  return span({ traceId: newTraceId(), startTimeUnixNano: String(start), endTimeUnixNano: String(start - 1_000n) });
}

async function send(token: string, spans: Span[]): Promise<{ rejected: string; message: string }> {
  const res = await fetch(`${stack.collectorUrl}/v1/traces`, {
    method: 'POST',
    body: requestBody(protobufBody(request(spans))),
    headers: { 'content-type': 'application/x-protobuf', authorization: `Bearer ${token}` },
  });
  assert.equal(res.status, 200);
  const out = decodeExportTraceServiceResponse(Buffer.from(await res.arrayBuffer()));
  return {
    rejected: int64ToString(out.partialSuccess?.rejectedSpans),
    message: out.partialSuccess?.errorMessage ?? '',
  };
}

async function waitForWarnings(session: string): Promise<void> {
  await until(
    `the ingest stored the flagged read of ${session}`,
    async () => {
      const rs = await stack.ch.query({
        query: 'SELECT count() AS n FROM {db:Identifier}.tool_call_warnings WHERE session_id = {s:String}',
        query_params: { db: database, s: session },
        format: 'JSONEachRow',
      });
      const [row] = await rs.json<{ n: string }>();
      return Number(row?.n ?? 0) > 0;
    },
    { timeoutMs: 60_000, everyMs: 250 },
  );
}

function env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    ...process.env,
    TOOLTRAIL_CLICKHOUSE_DATABASE: database,
    TOOLTRAIL_COLLECTOR_URL: stack.collectorUrl,
    TOOLTRAIL_COLLECTOR_METRICS_TOKEN: METRICS_TOKEN,
    TOOLTRAIL_API_TOKENS: `${ACME_READER}=acme,${GLOBEX_READER}=globex`,
    TOOLTRAIL_API_TOKEN: '',
    ...extra,
  };
}

/** Runs one `tooltrail …` command in-process; what it printed and its exit code. */
async function cli(args: string[], e: NodeJS.ProcessEnv = env()): Promise<{ out: string; err: string; code: number }> {
  const out: string[] = [];
  const err: string[] = [];
  const program = new Command('tooltrail').exitOverride();
  const io = { out: (l: string) => out.push(l), err: (l: string) => err.push(l), env: e };
  registerStatusCommand(program, { ...io, now: () => new Date() });
  registerAlertsCommands(program, { ...io, clock: systemClock });
  try {
    await program.parseAsync(args, { from: 'user' });
    return { out: out.join('\n'), err: err.join('\n'), code: Number(process.exitCode ?? 0) };
  } finally {
    process.exitCode = 0;
  }
}

describe('tooltrail status and the sender log, through the real collector, Kafka and ingest', () => {
  let acmeSession: string;
  let flagged: Span;
  let rejected: Span;
  let unknown: Span;
  before(async () => {
    await requireKafka();
    dir = mkdtempSync(join(tmpdir(), 'tt-status-'));
    stack = await startStack({
      services: { ...services, alertmanager: { ...services.alertmanager, mode: 'local', url: 'http://127.0.0.1:1' } },
      schema: { database, retentionDays: DEFAULT_RETENTION_DAYS },
      mode: 'kafka',
      kafka: { topic: uniqueName('status_spans'), groupId: uniqueName('status-ingest') },
      collector: {
        host: '127.0.0.1',
        port: 0,
        tokens: [
          { token: ACME_TOKEN, tenant: 'acme' },
          { token: GLOBEX_TOKEN, tenant: 'globex' },
        ],
      },
      evaluateEverySeconds: 3_600,
      pagesFile: join(dir, 'pages.jsonl'),
      env: { ...process.env, TOOLTRAIL_COLLECTOR_METRICS_TOKEN: METRICS_TOKEN },
      log: (line) => collectorLog.push(line),
    });
    acmeSession = `status-${randomBytes(3).toString('hex')}`;
    flagged = flaggedRead(acmeSession);
    rejected = rejectedSpan();
    unknown = unknownEffectCall(acmeSession);
    const answer = await send(ACME_TOKEN, [flagged, rejected, unknown]);
    assert.equal(answer.rejected, '1', 'the span that ends before it starts is rejected');
    await waitForWarnings(acmeSession);
  });
  after(async () => {
    await stack?.stop();
    await stack?.ch.command({ query: `DROP DATABASE IF EXISTS ${database}` }).catch(() => {});
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('status shows, per tenant and reason, what was kept flagged and what was rejected, each with an example span', async () => {
    const r = await cli(['status', '--tenant', 'acme', '--json']);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as StatusReport;
    assert.deepEqual(report.scope, { tenant: 'acme' });
    const flag = report.flagged.find((f) => f.reason === 'INVALID_CONTRACT_ATTRIBUTE');
    assert.ok(flag, `flagged: ${JSON.stringify(report.flagged)}`);
    assert.equal(flag.tenant, 'acme');
    assert.equal(flag.attribute, Attr.RESULT_COMPLETE);
    assert.equal(flag.example_span_id, bytesToHex(flagged.spanId));
    assert.match(flag.message, /must be bool, got string "false"/);
    assert.ok(report.rejected, `the collector answered: ${JSON.stringify(report.collector)}`);
    const rej = report.rejected.find((x) => x.reason === 'invalid_timestamps');
    assert.ok(rej, `rejected: ${JSON.stringify(report.rejected)}`);
    assert.equal(rej.tenant, 'acme');
    assert.equal(rej.spans, 1);
    assert.equal(rej.example_span_id, bytesToHex(rejected.spanId));

    const text = await cli(['status', '--tenant', 'acme']);
    assert.equal(text.code, 0, text.err);
    assert.match(
      text.out,
      new RegExp(
        `acme +FLAGGED +INVALID_CONTRACT_ATTRIBUTE ${Attr.RESULT_COMPLETE}.*e\\.g\\. span ${bytesToHex(flagged.spanId)}`,
      ),
    );
    assert.match(
      text.out,
      new RegExp(`acme +REJECTED +invalid_timestamps .* 1 span\\(s\\) +e\\.g\\. span ${bytesToHex(rejected.spanId)}`),
    );
  });

  it('status lists the tools of another emitter that no tool policy gives an effect', async () => {
    const r = await cli(['status', '--tenant', 'acme', '--json']);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as StatusReport;
    assert.deepEqual(
      report.unknownEffect.map((u) => [u.tenant, u.tool, u.emitter, u.spans, u.example_span_id]),
      [['acme', 'purge_tickets', 'genai', 1, bytesToHex(unknown.spanId)]],
    );
    const text = await cli(['status', '--tenant', 'acme']);
    assert.match(text.out, /acme +UNKNOWN +effect of purge_tickets \(genai\) .* 1 span\(s\) .*--policy/);
  });

  it("status with a tenant's token shows that tenant only, and refuses another tenant", async () => {
    const globexSession = `status-g-${randomBytes(3).toString('hex')}`;
    await send(GLOBEX_TOKEN, [flaggedRead(globexSession), rejectedSpan()]);
    await waitForWarnings(globexSession);
    const r = await cli(['status', '--json', '--token', GLOBEX_READER]);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as StatusReport;
    assert.deepEqual(report.scope, { tenant: 'globex' });
    assert.ok(report.flagged.length > 0 && report.flagged.every((f) => f.tenant === 'globex'));
    assert.ok(report.rejected && report.rejected.length > 0 && report.rejected.every((x) => x.tenant === 'globex'));
    assert.doesNotMatch(r.out, /acme/);
    const refused = await cli(['status', '--tenant', 'acme', '--token', GLOBEX_READER]);
    assert.equal(refused.code, 1);
    assert.equal(refused.out, '');
    assert.match(refused.err, /does not give access to tenant "acme"/);
    const unscoped = await cli(['status']);
    assert.equal(unscoped.code, 1);
    assert.match(unscoped.err, /whose data\?/);
  });

  it("the collector's answer is its own tenant for a sender's token, and 401 without one", async () => {
    const own = await fetch(`${stack.collectorUrl}/v1/rejections?since=3600`, {
      headers: { authorization: `Bearer ${GLOBEX_TOKEN}` },
    });
    assert.equal(own.status, 200);
    const body = (await own.json()) as { tenants: string; rejections: { tenant: string }[] };
    assert.equal(body.tenants, 'globex');
    assert.ok(body.rejections.every((x) => x.tenant === 'globex'));
    const none = await fetch(`${stack.collectorUrl}/v1/rejections`);
    assert.equal(none.status, 401);
    const tooLong = await fetch(`${stack.collectorUrl}/v1/rejections?since=7200`, {
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(tooLong.status, 400);
    assert.match(((await tooLong.json()) as { error: string }).error, /keeps one hour/);
  });

  it('status still shows what was flagged when the collector cannot be asked, and says so (exit 3)', async () => {
    const r = await cli(['status', '--tenant', 'acme', '--json', '--collector', 'http://127.0.0.1:1']);
    assert.equal(r.code, 3);
    const report = JSON.parse(r.out) as StatusReport;
    assert.equal(report.rejected, null);
    assert.ok(report.flagged.some((f) => f.reason === 'INVALID_CONTRACT_ATTRIBUTE'));
    assert.match(r.err, /rejections unknown: the collector at http:\/\/127\.0\.0\.1:1 could not be asked/);
  });

  it('the collector tells each rejection or flag reason once per minute per tenant, with an example span', async () => {
    // acme's first request was told (one line per reason); the same mistakes again within the minute are not.
    await send(ACME_TOKEN, [flaggedRead(acmeSession), rejectedSpan()]);
    const lines = (tenant: string, reason: string) =>
      collectorLog.filter((l) => l.includes(`tenant ${tenant}:`) && l.includes(reason));
    const acmeRejected = lines('acme', 'invalid_timestamps');
    assert.equal(acmeRejected.length, 1, collectorLog.join('\n'));
    assert.match(
      acmeRejected[0] ?? '',
      new RegExp(`1 span\\(s\\) rejected, invalid_timestamps; e\\.g\\. span ${bytesToHex(rejected.spanId)}`),
    );
    const acmeFlagged = lines('acme', 'invalid_contract_attribute');
    assert.equal(acmeFlagged.length, 1, collectorLog.join('\n'));
    assert.match(
      acmeFlagged[0] ?? '',
      new RegExp(`kept flagged, invalid_contract_attribute; e\\.g\\. span ${bytesToHex(flagged.spanId)}`),
    );
    assert.equal(lines('globex', 'invalid_timestamps').length, 1, 'another tenant has its own line');
  });

  it('findings for a tenant with no data says so on stderr; a tenant the collector stored for does not', async () => {
    const typo = await cli(['findings', '--tenant', 'acmee']);
    assert.equal(typo.code, 0, typo.err);
    assert.match(typo.err, /tenant acmee has no tool calls stored at all/);
    const own = await cli(['findings', '--tenant', 'acme']);
    assert.doesNotMatch(own.err, /no tool calls stored/);
  });
});
