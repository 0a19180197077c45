/**
 * `npm run demo`: the whole idea in under two minutes, leaving nothing running.
 *
 * 1. starts the stack (embedded ClickHouse, collector with a bearer token, direct writer — or Kafka with --kafka —
 *    and the alert evaluator);
 * 2. emits 75 days of warning history as plain OTel spans, and records who owns what;
 * 3. runs a service-account cleanup agent three times through the instrumentation library, exporting its spans
 *    over OTLP to the collector: naive with the guard on, naive with the guard off, careful;
 * 4. evaluates the detectors once, and shows the findings and pages, the warning lifecycle, a reconstruction of
 *    the bad session (terminal and HTML), and a tamper-evidence check of what was stored;
 * 5. stops everything it started.
 *
 * Entry point: demo/main.ts (flags --kafka, --no-color).
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import {
  alertsConfigFromEnv,
  type FindingRecord,
  listRecords,
  reviewWarnings,
  setOwner,
  warningsCommandRows,
} from '../alerts/index.ts';
import { verifyDigests } from '../audit/verify.ts';
import { startStack } from '../cli/stack/stack.ts';
import { OtelResource } from '../contract/index.ts';
import { TABLES } from '../ingest/writer.ts';
import { createTooltrail } from '../instrumentation/index.ts';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { metricValue } from '../platform/metrics/index.ts';
import { reconstructSession } from '../reconstruct/reconstruct.ts';
import { renderReconstructionHtml } from '../reconstruct/render-html.ts';
import { renderReconstructionText } from '../reconstruct/render-terminal.ts';
import type { SchemaConfig } from '../schema/config.ts';
import { loadServicesConfig } from '../services/config.ts';
import { formatAgentRun, runCleanupAgent } from './agent/index.ts';
import { emitWarningHistory } from './history.ts';

const TENANT = 'acme';
const AGENT = 'cleanup-agent';
export const DEMO_DATABASE = 'tooltrail_demo';
const SESSIONS = {
  guarded: 'demo-naive-guard-on',
  unguarded: 'demo-naive-guard-off',
  careful: 'demo-careful',
} as const;

export interface DemoResult {
  findings: FindingRecord[];
  pagesTo: string;
  htmlReport: string;
  verified: boolean;
}

function heading(out: (l: string) => void, title: string): void {
  out('');
  out(`━━ ${title} ${'━'.repeat(Math.max(3, 100 - title.length))}`);
}

export interface DemoOptions {
  kafka: boolean;
  out: (line: string) => void;
  color: boolean;
  /** Where the demo writes (default tooltrail_demo); tests give each run its own. */
  database?: string;
  /** Kafka mode: topic and consumer group (default tooltrail_demo_spans / tooltrail-demo). */
  topic?: string;
  groupId?: string;
}

export async function runDemo(opts: DemoOptions): Promise<DemoResult> {
  const { out } = opts;
  const started = Date.now();
  const services = loadServicesConfig();
  const database = opts.database ?? DEMO_DATABASE;
  const schema: SchemaConfig = { database, retentionDays: 400 };
  const token = randomBytes(16).toString('hex');
  const demoDir = join(services.home, 'demo');
  const groupId = opts.groupId ?? 'tooltrail-demo';
  mkdirSync(demoDir, { recursive: true });

  heading(out, 'tooltrail demo: a cleanup agent, an empty page that was not the end, and what tooltrail does about it');
  const stack = await startStack({
    services,
    schema,
    mode: opts.kafka ? 'kafka' : 'direct',
    collector: { host: '127.0.0.1', port: 0, tokens: [{ token, tenant: TENANT }] },
    // The demo evaluates on demand; the schedule only keeps alerts alive in the meantime.
    evaluateEverySeconds: 3_600,
    // A fresh demo database each run, so the story reads the same every time.
    freshDatabase: true,
    pagesFile: join(demoDir, 'pages.jsonl'),
    kafka: { topic: opts.topic ?? 'tooltrail_demo_spans', groupId },
    env: process.env,
    log: (l) => out(`  ${l}`),
  });
  // Counts what the agent ended, so Kafka mode can wait until the ingest stored all of it.
  let spansEnded = 0;
  const counter: SpanProcessor = {
    onStart: () => {},
    onEnd: () => {
      spansEnded++;
    },
    forceFlush: async () => {},
    shutdown: async () => {},
  };
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ [OtelResource.SERVICE_NAME]: AGENT }),
    spanProcessors: [
      counter,
      new BatchSpanProcessor({
        exporter: new OTLPTraceExporter({
          url: `${stack.collectorUrl}/v1/traces`,
          headers: { authorization: `Bearer ${token}` },
        }),
        maxExportBatchSize: 256,
        scheduledDelayMillis: 200,
      }),
    ],
  });
  try {
    heading(out, 'who owns what');
    const now = new Date();
    const meta = (reason: string, daysAgo = 0) => ({
      by: 'demo',
      reason,
      at: new Date(now.getTime() - daysAgo * 86_400_000),
    });
    const owners: {
      kind: 'tool' | 'warning';
      subject: string;
      source: string;
      owner: string;
      team: string;
      daysAgo: number;
    }[] = [
      {
        kind: 'tool',
        subject: 'delete_service_accounts',
        source: '',
        owner: 'identity-oncall',
        team: 'identity',
        daysAgo: 0,
      },
      {
        kind: 'tool',
        subject: 'mark_control_compliant',
        source: '',
        owner: 'grc-oncall',
        team: 'compliance',
        daysAgo: 0,
      },
      // Owned for 60 days and still seen every day: its owner gets reminded.
      {
        kind: 'warning',
        subject: 'PARTIAL_FIELD_SET',
        source: 'inventory-api.v1.owner_email',
        owner: 'inventory-api-team',
        team: 'inventory',
        daysAgo: 60,
      },
    ];
    for (const { kind, subject, source, owner, team, daysAgo } of owners) {
      await setOwner(
        stack.ch,
        database,
        { tenant: '', kind, subject, source },
        { owner, team },
        meta('demo setup', daysAgo),
      );
      out(`  ${kind.padEnd(8)} ${(source ? `${subject} @ ${source}` : subject).padEnd(52)} -> ${owner} (team ${team})`);
    }
    out('  (nobody owns close_ticket, nor the STALE_INDEX warning of inventory-search-index)');

    const historyTracer = provider.getTracer('tooltrail-demo-history');
    const historySpans = emitWarningHistory(historyTracer, now, AGENT);
    out(`  + ${historySpans} spans of warning history over the last 75 days, sent as plain OTel spans`);

    const runs = [
      {
        title: 'run 1: the naive agent, guard ON',
        session: SESSIONS.guarded,
        guard: 'on' as const,
        strategy: 'naive' as const,
        onUnsafe: 'review_requested' as const,
      },
      {
        title: 'run 2: the naive agent, guard OFF (what happens today)',
        session: SESSIONS.unguarded,
        guard: 'off' as const,
        strategy: 'naive' as const,
        onUnsafe: 'refused' as const,
      },
      {
        title: 'run 3: the careful agent reads every page, then acts',
        session: SESSIONS.careful,
        guard: 'on' as const,
        strategy: 'careful' as const,
        onUnsafe: 'refused' as const,
      },
    ];
    for (const r of runs) {
      heading(out, r.title);
      const tooltrail = createTooltrail({ tracerProvider: provider, onUnsafeEvidence: r.onUnsafe });
      const summary = await runCleanupAgent({
        tooltrail,
        guard: r.guard,
        sessionId: r.session,
        strategy: r.strategy,
        agentName: AGENT,
      });
      for (const line of formatAgentRun(summary, { color: opts.color }).split('\n')) out(`  ${line}`);
    }
    // Every span acknowledged by the collector is stored (direct) or in Kafka; then let the ingest catch up.
    await provider.forceFlush();
    const ingest = stack.ingest;
    if (ingest) {
      const acknowledged = async () =>
        (await metricValue(ingest.metrics.rowsWritten, { table: TABLES.toolCalls })) +
        (await metricValue(ingest.metrics.rowsWritten, { table: TABLES.spans }));
      await waitForIngest(stack.ch, database, groupId, spansEnded, acknowledged);
    }

    heading(out, 'detectors: mutations that followed incomplete reads');
    const report = await stack.evaluator.runOnce();
    out(
      `  evaluator: ${report.found} finding(s), ${report.opened} new, ${report.alertsSent} alert(s) sent to ${stack.pagesTo}`,
    );
    const findings = (await listRecords(stack.ch, database, { tenant: TENANT, activeOnly: true })).filter(
      (f) => f.finding.session !== null,
    );
    for (const { finding: f } of findings) {
      out(
        `  [${f.severity.padEnd(8)}] ${f.kind} · session ${f.session} · tool ${f.tool} · reasons ${f.reasons.join(', ') || '-'} · page -> ${f.owner ?? 'ESCALATION (no owner)'}${f.team ? ` (team ${f.team})` : ''}`,
      );
      out(`             fingerprint ${f.fingerprint}: \`tooltrail reconstruct --finding ${f.fingerprint}\``);
    }
    const quietSessions = Object.values(SESSIONS).filter((s) => !findings.some((f) => f.finding.session === s));
    out(`  no finding for: ${quietSessions.join(', ') || '(none)'}`);

    heading(out, 'warnings that persist for months: escalate, remind, retire');
    const alertsConfig = alertsConfigFromEnv(process.env, services.alertmanager.url);
    const warnings = warningsCommandRows(
      await reviewWarnings(stack.ch, database, alertsConfig, new Date()),
      alertsConfig,
      new Date(),
    );
    for (const w of warnings) {
      out(
        `  ${w.code.padEnd(18)} ${w.source.padEnd(30)} seen ${String(w.days_seen).padStart(2)}/${w.window_days} days · last ${w.age_days}d ago · owner ${w.owner ?? '-'} · state ${w.state} · next: ${w.next_action}`,
      );
    }

    heading(out, `reconstruction of ${SESSIONS.unguarded}: what the agent saw, what it could not see, why it acted`);
    const reconstruction = await reconstructSession(stack.ch, schema, { tenant: TENANT, session: SESSIONS.unguarded });
    for (const line of renderReconstructionText(reconstruction).split('\n')) out(`  ${line}`);
    const htmlReport = join(demoDir, `reconstruction-${SESSIONS.unguarded}.html`);
    writeFileSync(htmlReport, renderReconstructionHtml(reconstruction));

    heading(out, 'tamper evidence: the digests the writer chained as it stored the rows');
    const verify = await verifyDigests(stack.ch, schema, {
      tenant: TENANT,
      from: new Date(started - 3_600_000),
      to: new Date(Date.now() + 60_000),
    });
    out(
      `  ${verify.ok ? 'VERIFIED' : 'FAILED'}: ${verify.checked.rows} row(s) in ${verify.checked.digest_records} digest record(s) match what was written${verify.ok ? '' : `; ${verify.issues.length} issue(s)`}`,
    );

    heading(out, 'where to look next');
    out(`  HTML report of the bad session: ${relative(process.cwd(), htmlReport)} (open it in a browser)`);
    out(`  pages: ${stack.pagesTo}`);
    out(
      `  the same from the CLI: TOOLTRAIL_CLICKHOUSE_DATABASE=${database} npx tooltrail findings --tenant ${TENANT} | warnings --tenant ${TENANT} | reconstruct --session ${SESSIONS.unguarded}`,
    );
    out(
      '  dashboards: `docker compose up`, then Grafana at http://127.0.0.1:3000 (folder "tooltrail"); see dashboards/README.md',
    );
    out(`  demo finished in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return { findings, pagesTo: stack.pagesTo, htmlReport, verified: verify.ok };
  } finally {
    await provider.shutdown();
    await stack.stop();
  }
}

/**
 * Kafka mode: the collector acknowledged once Kafka had the spans; wait until the ingest stored all of them. Rows of
 * tool_calls become visible before the insert has finished filling the detectors' tables (materialized views), so
 * "stored" also means: no batch of this consumer group is still between its recorded intent and its completion, or
 * else ClickHouse acknowledged inserts of all of them to the ingest (whose mark of a stored batch may have failed
 * while it went on: "committing anyway").
 */
const INGEST_IDLE_MS = 120_000;

async function waitForIngest(
  ch: ClickHouseClient,
  database: string,
  group: string,
  atLeast: number,
  acknowledged: () => Promise<number>,
): Promise<void> {
  // A loaded machine slows the ingest's group join and inserts: the wait lasts while rows keep arriving.
  let deadline = Date.now() + INGEST_IDLE_MS;
  let stored = 0;
  while (Date.now() < deadline) {
    const rs = await ch.query({
      query: `SELECT (SELECT count() FROM {db:Identifier}.tool_calls) + (SELECT count() FROM {db:Identifier}.spans) AS n,
                     (SELECT count() FROM {db:Identifier}.ingest_batches FINAL
                      WHERE consumer_group = {group:String} AND state = 0) AS in_flight`,
      query_params: { db: database, group },
      format: 'JSONEachRow',
    });
    const [row] = await rs.json<{ n: string; in_flight: string }>();
    const now = Number(row?.n ?? 0);
    if (now >= atLeast && (Number(row?.in_flight ?? 1) === 0 || (await acknowledged()) >= atLeast)) return;
    if (now > stored) deadline = Date.now() + INGEST_IDLE_MS;
    stored = now;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `the ingest stored ${stored} of the demo's ${atLeast} spans, none more in the last ${INGEST_IDLE_MS / 1000} s`,
  );
}
