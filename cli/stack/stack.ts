/**
 * The whole pipeline with its components in this process (`tooltrail up`, the demo; the soak runs them as child
 * processes instead: chaos/stack.ts, on the same services.ts): ClickHouse (the embedded engine unless a server is
 * configured), migrations, the collector, the writer (direct, or Kafka + the ingest consumer), and the alert
 * evaluator (Alertmanager when configured or found, otherwise pages kept in a local file). `stop()` closes in the
 * order that loses nothing: stop accepting spans, drain the ingest, last evaluation, close clients, stop what we
 * started.
 */
import { join } from 'node:path';
import {
  type AlertSink,
  alertmanagerClient,
  alertsConfigFromEnv,
  type EvaluationReport,
  Evaluator,
  type Schedule,
} from '../../alerts/index.ts';
import { digestConfigFromEnv } from '../../audit/config.ts';
import { createDigestRecorder } from '../../audit/recorder.ts';
import {
  type Collector,
  createCollector,
  defaultCollectorConfig,
  METRICS_TOKEN_ENV,
  validateCollectorConfig,
} from '../../collector/index.ts';
import { applyOverrides, defaultIngestConfig, overridesFromEnv, validateIngestConfig } from '../../ingest/config.ts';
import { DirectSink } from '../../ingest/direct.ts';
import { emitterOptions } from '../../ingest/emitters/options.ts';
import { type RunningIngest, startIngest } from '../../ingest/service.ts';
import { type ClickHouseClient, clickHouseOf } from '../../platform/clickhouse.ts';
import { type SchemaConfig, SchemaConfigSchema } from '../../schema/config.ts';
import { alertmanagerReady } from '../../services/alertmanager/alertmanager.ts';
import type { ServicesConfig } from '../../services/config.ts';
import type { ManagedService } from '../../services/service.ts';
import { directSpanSink } from './direct-span-sink.ts';
import { pageFileSink } from './page-file-sink.ts';
import { migrateSchema, startServices } from './services.ts';

export interface StackOptions {
  services: ServicesConfig;
  schema: SchemaConfig;
  /** `direct`: collector -> ClickHouse in this process. `kafka`: collector -> Kafka -> ingest -> ClickHouse. */
  mode: 'direct' | 'kafka';
  /** Drop the database before migrating it (the demo: the same story every run). */
  freshDatabase?: boolean;
  /** Kafka mode: the topic the collector produces to and the ingest consumes, and the ingest's consumer group. */
  kafka?: { topic: string; groupId: string };
  collector: { host: string; port: number; tokens: { token: string; tenant: string }[] };
  /**
   * Kafka mode: the ingest's tenant for spans without `tooltrail.tenant` (another producer, e.g. an OpenTelemetry
   * Collector's Kafka exporter). Absent: TOOLTRAIL_INGEST_DEFAULT_TENANT, else the collector's no-auth tenant when
   * it runs without tokens, else none (such spans are dead-lettered).
   */
  defaultTenant?: string;
  /** The tool policy file for tool spans of other emitters (ingest/emitters/; `--policy`, TOOLTRAIL_INGEST_POLICY_FILE). */
  policyFile?: string;
  /** Seconds between evaluator runs. */
  evaluateEverySeconds: number;
  /** Where pages go when no Alertmanager is configured or running. */
  pagesFile: string;
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  /** Every evaluator run's report (the benches time the runs). */
  onEvaluation?: (report: EvaluationReport) => void;
}

export interface Stack {
  /** `http://host:port` of the collector (OTLP/HTTP: POST /v1/traces). */
  collectorUrl: string;
  ch: ClickHouseClient;
  database: string;
  evaluator: Evaluator;
  /** `alertmanager <url>` or `file <path>`: where pages go. */
  pagesTo: string;
  collector: Collector;
  ingest?: RunningIngest;
  stop(): Promise<void>;
}

export function defaultPagesFile(services: ServicesConfig): string {
  return join(services.home, 'pages.jsonl');
}

/** The ingest's default tenant and where it comes from: the option, the environment, or the no-auth tenant. */
export function defaultTenantOf(
  o: Pick<StackOptions, 'defaultTenant'>,
  fromEnv: string | undefined,
  auth: { mode: string; noAuthTenant: string },
): { tenant?: string; source: string } {
  if (o.defaultTenant !== undefined) return { tenant: o.defaultTenant, source: '--default-tenant' };
  if (fromEnv !== undefined) return { tenant: fromEnv, source: 'TOOLTRAIL_INGEST_DEFAULT_TENANT' };
  if (auth.mode === 'none') return { tenant: auth.noAuthTenant, source: "the collector's no-auth tenant" };
  return { source: 'none' };
}

export async function startStack(o: StackOptions): Promise<Stack> {
  const started: ManagedService[] = [];
  let ch: ClickHouseClient | undefined;
  let collector: Collector | undefined;
  let ingest: RunningIngest | undefined;
  let evaluator: Evaluator | undefined;
  let schedule: Schedule | undefined;
  const step = (name: string, f: () => Promise<unknown>) =>
    f().catch((err: Error) => o.log(`stop ${name}: ${err.message}`));
  // Stop accepting spans, drain the ingest, evaluate once more over everything stored, then close and stop.
  const stop = async () => {
    if (collector) await step('collector', () => collector!.close());
    if (ingest) await step('ingest', () => ingest!.stop());
    if (schedule) await step('alerts', () => schedule!.stop());
    if (evaluator) await step('alerts', () => evaluator!.runOnce());
    if (ch) await step('clickhouse client', () => ch!.close());
    for (const s of started.reverse()) await step(s.name, () => s.down());
  };
  try {
    started.push(...(await startServices(o.services, { kafka: o.mode === 'kafka', log: o.log })).started);
    ch = clickHouseOf(o.services.clickhouse);
    await migrateSchema(ch, SchemaConfigSchema.parse(o.schema), {
      ...(o.freshDatabase ? { fresh: true } : {}),
      log: o.log,
    });

    const collectorConfig = defaultCollectorConfig(o.env);
    collectorConfig.http = { ...collectorConfig.http, host: o.collector.host, port: o.collector.port };
    collectorConfig.auth =
      o.collector.tokens.length > 0
        ? { ...collectorConfig.auth, mode: 'bearer', tokens: o.collector.tokens }
        : { ...collectorConfig.auth, mode: 'none' };
    // The operator's credential for /metrics and /v1/rejections (`tooltrail status`), as for `tooltrail collector`.
    const metricsToken = o.env[METRICS_TOKEN_ENV];
    if (metricsToken) collectorConfig.metrics = { ...collectorConfig.metrics, token: metricsToken };
    if (o.mode === 'kafka') {
      collectorConfig.sink = 'kafka';
      collectorConfig.kafka.brokers = o.services.kafka.brokers;
      // The topic both use: the caller's, else the collector's environment (as `tooltrail collector` reads it).
      if (o.kafka) collectorConfig.kafka.topic = o.kafka.topic;
      else if (o.env.TOOLTRAIL_COLLECTOR_TOPIC) collectorConfig.kafka.topic = o.env.TOOLTRAIL_COLLECTOR_TOPIC;
      validateCollectorConfig(collectorConfig);
      // The ingest's environment (TOOLTRAIL_INGEST_*) counts here as for `tooltrail ingest`.
      const ingestConfig = applyOverrides(defaultIngestConfig(o.env), {
        ...overridesFromEnv(o.env),
        ...(o.policyFile !== undefined ? { policyFile: o.policyFile } : {}),
      });
      ingestConfig.kafka.brokers = o.services.kafka.brokers;
      ingestConfig.kafka.topic = collectorConfig.kafka.topic;
      if (o.kafka) ingestConfig.kafka.groupId = o.kafka.groupId;
      ingestConfig.clickhouse = {
        ...ingestConfig.clickhouse,
        url: o.services.clickhouse.url,
        database: o.schema.database,
      };
      const tenant = defaultTenantOf(o, ingestConfig.defaultTenant, collectorConfig.auth);
      if (tenant.tenant !== undefined) ingestConfig.defaultTenant = tenant.tenant;
      else delete ingestConfig.defaultTenant;
      validateIngestConfig(ingestConfig);
      o.log(
        tenant.tenant !== undefined
          ? `ingest       spans in ${ingestConfig.kafka.topic} without tooltrail.tenant are stored as tenant "${tenant.tenant}" (${tenant.source})`
          : `ingest       spans in ${ingestConfig.kafka.topic} without tooltrail.tenant are dead-lettered to ${ingestConfig.kafka.deadLetterTopic} (missing_tenant): no default tenant while the collector has tokens (set --default-tenant)`,
      );
      const digestConfig = digestConfigFromEnv(o.env);
      ingest = await startIngest(ingestConfig, {
        log: (m) => o.log(`ingest       ${m}`),
        batchStored: (client) => createDigestRecorder(client, { database: o.schema.database, ...digestConfig }),
      });
      collector = await createCollector(collectorConfig, { notify: (l) => o.log(l), quiet: true });
    } else {
      validateCollectorConfig(collectorConfig);
      const fromEnv = validateIngestConfig(
        applyOverrides(defaultIngestConfig(o.env), {
          ...overridesFromEnv(o.env),
          ...(o.policyFile !== undefined ? { policyFile: o.policyFile } : {}),
        }),
      );
      const direct = new DirectSink({
        emitters: emitterOptions(fromEnv.emitters),
        ch,
        url: o.services.clickhouse.url,
        database: o.schema.database,
        batchStored: createDigestRecorder(ch, { database: o.schema.database, ...digestConfigFromEnv(o.env) }),
      });
      collector = await createCollector(collectorConfig, { sink: directSpanSink(direct), notify: (l) => o.log(l) });
    }
    const collectorUrl = await collector.start();
    o.log(
      `collector    ${collectorUrl}/v1/traces (${o.mode === 'kafka' ? 'Kafka -> ingest -> ClickHouse' : 'direct to ClickHouse'})`,
    );

    const amUrl = o.services.alertmanager.url;
    const useAlertmanager = o.services.alertmanager.mode === 'external' || (await alertmanagerReady(amUrl));
    const sink: AlertSink = useAlertmanager
      ? alertmanagerClient(amUrl, 5_000)
      : pageFileSink(o.pagesFile, (l) => o.log(`page         ${l}`));
    const pagesTo = useAlertmanager ? `alertmanager ${amUrl}` : `file ${o.pagesFile}`;
    const alertsConfig = { ...alertsConfigFromEnv(o.env, amUrl), intervalSeconds: o.evaluateEverySeconds };
    evaluator = new Evaluator({
      ch,
      database: o.schema.database,
      config: alertsConfig,
      sink,
      logger: {
        info: (m) => o.log(`alerts       ${m}`),
        error: (m, e) => o.log(`alerts       ${m}${e ? `: ${(e as Error).message}` : ''}`),
      },
    });
    schedule = evaluator.start(o.onEvaluation);
    o.log(`alerts       evaluating every ${o.evaluateEverySeconds}s; pages -> ${pagesTo}`);

    return {
      collectorUrl,
      ch,
      database: o.schema.database,
      evaluator,
      pagesTo,
      collector,
      ...(ingest ? { ingest } : {}),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
