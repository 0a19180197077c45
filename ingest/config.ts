/**
 * The ingest's configuration: plain typed data, defaults in one function, validated in one step that reports every
 * problem at once naming its key. Sources, later ones winning: defaults (with the services config for brokers and
 * ClickHouse), the environment, command-line flags.
 */

import { z } from 'zod';
import { TENANT_REGEX, TENANT_RULE } from '../contract/index.ts';
import { ConfigError } from '../platform/config-error.ts';
import {
  type ClickHouseTls,
  DEFAULT_DEAD_LETTER_TOPIC as DEAD_LETTER_TOPIC,
  DEFAULT_SPANS_TOPIC,
  DEFAULT_SPANS_TOPIC_PARTITIONS,
  loadConnectionSettings,
} from '../platform/connections.ts';
import { type KafkaSecurity, kafkaSecurityIssues, SASL_MECHANISMS } from '../platform/kafka/security.ts';
import { KAFKA_CLIENTS, type KafkaClientKind } from '../platform/kafka/types.ts';
import { Secret } from '../platform/secret.ts';
import { DEFAULT_DATABASE } from '../schema/config.ts';

/** The spans topic both the collector and the ingest default to (platform/connections.ts). */
export const DEFAULT_TOPIC = DEFAULT_SPANS_TOPIC;
export const DEFAULT_GROUP_ID = 'tooltrail-ingest';
export const DEFAULT_DEAD_LETTER_TOPIC = DEAD_LETTER_TOPIC;
/**
 * Large inserts are what ClickHouse likes (fewer parts to write and merge): from a backlog, 100k-span batches cost
 * ClickHouse 5.0 us per row against 6.6-7.9 at 50k, 113-114k rows/s against 98-106k (bench/ingest-throughput.ts,
 * alternated runs). Under light load batches are cut by the linger time long before this.
 */
export const DEFAULT_BATCH_MAX_ROWS = 100_000;
export const DEFAULT_BATCH_MAX_BYTES = 32 * 1024 * 1024;
/** How long the broker may hold a fetch to fill it (`minBytes`): the batching delay under light load. */
export const DEFAULT_LINGER_MS = 200;
export const DEFAULT_MIN_FETCH_BYTES = 256 * 1024;
export const DEFAULT_BACKOFF_INITIAL_MS = 500;
export const DEFAULT_BACKOFF_MAX_MS = 30_000;
export const DEFAULT_LAG_INTERVAL_MS = 5_000;
export const DEFAULT_SHUTDOWN_GRACE_MS = 15_000;
/** The collector's default too, so either can create the topic. */
export const DEFAULT_TOPIC_PARTITIONS = DEFAULT_SPANS_TOPIC_PARTITIONS;
export const DEFAULT_SESSION_TIMEOUT_MS = 30_000;
export const DEFAULT_CONCURRENCY = 3;
/**
 * Messages per partition within which a re-sent message is recognised: minutes of retries at any realistic
 * rate (1,000 spans/s in messages of 20 spans over 3 partitions is ~17 messages/s each), ~2 MB of ids each.
 */
export const DEFAULT_DEDUP_WINDOW = 20_000;

export interface IngestConfig {
  kafka: {
    brokers: string[];
    /** Topic of OTLP protobuf `ExportTraceServiceRequest` messages (the collector's, or an OTel Collector's). */
    topic: string;
    groupId: string;
    clientId: string;
    /** Undecodable messages and rejected spans go here, with the reason in headers. */
    deadLetterTopic: string;
    /** Create the topic and the dead-letter topic when missing. */
    createTopics: boolean;
    topicPartitions: number;
    /**
     * A member that stops heartbeating (kill -9) keeps its partitions this long before the group moves them;
     * the broker's minimum is 6 s (group.min.session.timeout.ms).
     */
    sessionTimeoutMs: number;
    /** TLS to the brokers (TOOLTRAIL_KAFKA_TLS*): `enabled`, `caFile`, `certFile` + `keyFile` (mTLS). */
    tls: KafkaSecurity['tls'];
    /** SASL (TOOLTRAIL_KAFKA_SASL_*): `mechanism`, `username`, `password`. */
    sasl: KafkaSecurity['sasl'];
    /** The client library (TOOLTRAIL_KAFKA_CLIENT): `platformatic` (@platformatic/kafka), the only one. */
    client: KafkaClientKind;
  };
  clickhouse: {
    url: string;
    user: string;
    password: Secret;
    /** For an `https://` URL: the CA that signed the server's certificate, a client certificate (mTLS). */
    tls: ClickHouseTls;
    database: string;
    requestTimeoutMs: number;
  };
  batch: {
    /** A batch stops growing at this many rows (it always holds at least one message). */
    maxRows: number;
    /** ... or this many message bytes; also the largest fetch per partition. */
    maxBytes: number;
    /** The broker holds a fetch up to this long to collect `minFetchBytes`. */
    lingerMs: number;
    minFetchBytes: number;
    /**
     * Partitions worked on at once: while one partition's insert runs in ClickHouse, another's batch is decoded,
     * which keeps both the ingest and ClickHouse busy.
     */
    concurrency: number;
  };
  retry: {
    /** Backoff after a failed insert (ClickHouse down): doubles from initial up to max. */
    initialBackoffMs: number;
    maxBackoffMs: number;
  };
  /** Tenant for spans whose resource has no `tooltrail.tenant` (absent: such spans are dead-lettered). */
  defaultTenant?: string;
  metrics: {
    /** Serve Prometheus metrics on this port (absent: not served). */
    port?: number;
    host: string;
    /** How often the group's lag is read from Kafka. */
    lagIntervalMs: number;
  };
  /** SIGTERM: how long the batch in flight may take to finish before the process exits anyway. */
  shutdownGraceMs: number;
  /**
   * Record tamper-evidence digests of every stored batch (audit/README.md). On by default; off, `tooltrail verify`
   * reports this ingest's rows as added, and the ingest spends about 40% of the CPU per span (bench/anchor).
   */
  auditDigests: boolean;
  /**
   * A message whose id (SHA-256 of its value) equals one this many messages before it in the same partition is a
   * client's re-send and is not stored again (docs/exactly-once.md, "Re-sent requests"). 0 turns it off.
   */
  dedupWindow: number;
  /** Tool spans of other emitters (ingest/emitters/): how they are judged. */
  emitters: {
    /** The tool policy file (YAML or JSON, the MCP proxy's format): effect, resource, items and targets per tool. */
    policyFile?: string;
    /** Key of the HMAC-SHA256 kept in place of their raw arguments and results (absent: nothing is kept of them). */
    payloadHashKey?: Secret;
  };
}

export function defaultIngestConfig(env: NodeJS.ProcessEnv = process.env): IngestConfig {
  const svc = loadConnectionSettings(env);
  return {
    kafka: {
      brokers: svc.kafka.brokers,
      topic: DEFAULT_TOPIC,
      groupId: DEFAULT_GROUP_ID,
      clientId: 'tooltrail-ingest',
      deadLetterTopic: DEFAULT_DEAD_LETTER_TOPIC,
      createTopics: true,
      topicPartitions: DEFAULT_TOPIC_PARTITIONS,
      sessionTimeoutMs: DEFAULT_SESSION_TIMEOUT_MS,
      tls: svc.kafka.security.tls,
      sasl: svc.kafka.security.sasl,
      client: svc.kafka.client,
    },
    clickhouse: {
      url: svc.clickhouse.url,
      user: svc.clickhouse.user,
      password: svc.clickhouse.password,
      tls: svc.clickhouse.tls,
      database: DEFAULT_DATABASE,
      requestTimeoutMs: 30_000,
    },
    batch: {
      maxRows: DEFAULT_BATCH_MAX_ROWS,
      maxBytes: DEFAULT_BATCH_MAX_BYTES,
      lingerMs: DEFAULT_LINGER_MS,
      minFetchBytes: DEFAULT_MIN_FETCH_BYTES,
      concurrency: DEFAULT_CONCURRENCY,
    },
    retry: { initialBackoffMs: DEFAULT_BACKOFF_INITIAL_MS, maxBackoffMs: DEFAULT_BACKOFF_MAX_MS },
    metrics: { host: '127.0.0.1', lagIntervalMs: DEFAULT_LAG_INTERVAL_MS },
    shutdownGraceMs: DEFAULT_SHUTDOWN_GRACE_MS,
    auditDigests: true,
    dedupWindow: DEFAULT_DEDUP_WINDOW,
    emitters: {},
  };
}

const identifier = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier');
const topicName = z.string().regex(/^[A-Za-z0-9._-]{1,249}$/, 'must be a Kafka topic name');
const positive = z.number().int().positive();

export const IngestConfigSchema = z
  .object({
    kafka: z.object({
      brokers: z.array(z.string().min(1)).min(1, 'needs at least one broker'),
      topic: topicName,
      groupId: z.string().min(1, 'must not be empty'),
      clientId: z.string().min(1, 'must not be empty'),
      deadLetterTopic: topicName,
      createTopics: z.boolean(),
      topicPartitions: positive,
      sessionTimeoutMs: z.number().int().min(6_000, 'must be at least 6000 (the broker minimum)'),
      tls: z.object({
        enabled: z.boolean(),
        caFile: z.string().optional(),
        certFile: z.string().optional(),
        keyFile: z.string().optional(),
      }),
      sasl: z.object({ mechanism: z.enum(SASL_MECHANISMS), username: z.string(), password: z.instanceof(Secret) }),
      client: z.enum(KAFKA_CLIENTS, { error: `must be one of ${KAFKA_CLIENTS.join(', ')}` }),
    }),
    clickhouse: z.object({
      url: z.url(),
      user: z.string(),
      password: z.instanceof(Secret),
      tls: z.object({ caFile: z.string().optional(), certFile: z.string().optional(), keyFile: z.string().optional() }),
      database: identifier,
      requestTimeoutMs: positive,
    }),
    batch: z.object({
      maxRows: positive,
      maxBytes: positive,
      lingerMs: z.number().int().min(0).max(60_000),
      minFetchBytes: z.number().int().min(1),
      concurrency: z.number().int().min(1).max(64),
    }),
    retry: z.object({ initialBackoffMs: positive, maxBackoffMs: positive }),
    defaultTenant: z.string().regex(TENANT_REGEX, `must be ${TENANT_RULE}`).optional(),
    metrics: z.object({
      port: z.number().int().min(0).max(65535).optional(),
      host: z.string().min(1),
      lagIntervalMs: positive,
    }),
    shutdownGraceMs: positive,
    auditDigests: z.boolean(),
    dedupWindow: z.number().int().min(0).max(10_000_000),
    emitters: z.object({
      policyFile: z.string().min(1).optional(),
      payloadHashKey: z
        .instanceof(Secret)
        .refine((k) => k.reveal().length >= 16, 'must be at least 16 characters')
        .optional(),
    }),
  })
  .superRefine((c, ctx) => {
    for (const issue of kafkaSecurityIssues(c.kafka, (field) => `ingest.kafka.${field}`)) {
      ctx.addIssue({ code: 'custom', path: ['kafka', ...issue.field.split('.')], message: issue.message });
    }
    if (c.kafka.deadLetterTopic === c.kafka.topic) {
      ctx.addIssue({ code: 'custom', path: ['kafka', 'deadLetterTopic'], message: 'must differ from kafka.topic' });
    }
    if (c.retry.maxBackoffMs < c.retry.initialBackoffMs) {
      ctx.addIssue({ code: 'custom', path: ['retry', 'maxBackoffMs'], message: 'must be >= retry.initialBackoffMs' });
    }
  });

/** A ConfigError: the CLI prints it as one line (cli/program.ts), never with a stack trace. */
export class IngestConfigError extends ConfigError {
  override name = 'IngestConfigError';
}

/** Validates a complete configuration; the error names every bad key (`ingest.kafka.topic: ...`). */
export function validateIngestConfig(config: IngestConfig): IngestConfig {
  const r = IngestConfigSchema.safeParse(config);
  if (!r.success) {
    throw new IngestConfigError(
      `invalid ingest configuration: ${r.error.issues.map((i) => `ingest.${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return r.data as IngestConfig;
}

/** Overrides a source can give (environment or flags), all optional, as strings or numbers. */
export interface IngestOverrides {
  topic?: string;
  groupId?: string;
  deadLetterTopic?: string;
  database?: string;
  maxRows?: number;
  maxBytes?: number;
  lingerMs?: number;
  defaultTenant?: string;
  metricsPort?: number;
  metricsHost?: string;
  createTopics?: boolean;
  sessionTimeoutMs?: number;
  auditDigests?: boolean;
  dedupWindow?: number;
  policyFile?: string;
  payloadHashKey?: string;
}

const num = z.coerce.number().int();
const EnvSchema = z.object({
  TOOLTRAIL_INGEST_TOPIC: z.string().optional(),
  TOOLTRAIL_INGEST_GROUP_ID: z.string().optional(),
  TOOLTRAIL_INGEST_DLQ_TOPIC: z.string().optional(),
  TOOLTRAIL_CLICKHOUSE_DATABASE: z.string().optional(),
  TOOLTRAIL_INGEST_BATCH_MAX_ROWS: num.optional(),
  TOOLTRAIL_INGEST_BATCH_MAX_BYTES: num.optional(),
  TOOLTRAIL_INGEST_LINGER_MS: num.optional(),
  TOOLTRAIL_INGEST_DEFAULT_TENANT: z.string().optional(),
  TOOLTRAIL_INGEST_METRICS_PORT: num.optional(),
  TOOLTRAIL_INGEST_METRICS_HOST: z.string().min(1).optional(),
  TOOLTRAIL_INGEST_CREATE_TOPICS: z.enum(['true', 'false']).optional(),
  TOOLTRAIL_INGEST_SESSION_TIMEOUT_MS: num.optional(),
  TOOLTRAIL_INGEST_AUDIT_DIGESTS: z.enum(['true', 'false']).optional(),
  TOOLTRAIL_INGEST_DEDUP_WINDOW: num.optional(),
  TOOLTRAIL_INGEST_POLICY_FILE: z.string().optional(),
  TOOLTRAIL_PAYLOAD_HASH_KEY: z.string().optional(),
});

export function overridesFromEnv(env: NodeJS.ProcessEnv = process.env): IngestOverrides {
  const r = EnvSchema.safeParse(env);
  if (!r.success) {
    throw new IngestConfigError(
      `invalid ingest environment: ${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  const e = r.data;
  const o: IngestOverrides = {};
  if (e.TOOLTRAIL_INGEST_TOPIC !== undefined) o.topic = e.TOOLTRAIL_INGEST_TOPIC;
  if (e.TOOLTRAIL_INGEST_GROUP_ID !== undefined) o.groupId = e.TOOLTRAIL_INGEST_GROUP_ID;
  if (e.TOOLTRAIL_INGEST_DLQ_TOPIC !== undefined) o.deadLetterTopic = e.TOOLTRAIL_INGEST_DLQ_TOPIC;
  if (e.TOOLTRAIL_CLICKHOUSE_DATABASE !== undefined) o.database = e.TOOLTRAIL_CLICKHOUSE_DATABASE;
  if (e.TOOLTRAIL_INGEST_BATCH_MAX_ROWS !== undefined) o.maxRows = e.TOOLTRAIL_INGEST_BATCH_MAX_ROWS;
  if (e.TOOLTRAIL_INGEST_BATCH_MAX_BYTES !== undefined) o.maxBytes = e.TOOLTRAIL_INGEST_BATCH_MAX_BYTES;
  if (e.TOOLTRAIL_INGEST_LINGER_MS !== undefined) o.lingerMs = e.TOOLTRAIL_INGEST_LINGER_MS;
  if (e.TOOLTRAIL_INGEST_DEFAULT_TENANT) o.defaultTenant = e.TOOLTRAIL_INGEST_DEFAULT_TENANT;
  if (e.TOOLTRAIL_INGEST_METRICS_PORT !== undefined) o.metricsPort = e.TOOLTRAIL_INGEST_METRICS_PORT;
  if (e.TOOLTRAIL_INGEST_METRICS_HOST !== undefined) o.metricsHost = e.TOOLTRAIL_INGEST_METRICS_HOST;
  if (e.TOOLTRAIL_INGEST_CREATE_TOPICS !== undefined) o.createTopics = e.TOOLTRAIL_INGEST_CREATE_TOPICS === 'true';
  if (e.TOOLTRAIL_INGEST_SESSION_TIMEOUT_MS !== undefined) o.sessionTimeoutMs = e.TOOLTRAIL_INGEST_SESSION_TIMEOUT_MS;
  if (e.TOOLTRAIL_INGEST_AUDIT_DIGESTS !== undefined) o.auditDigests = e.TOOLTRAIL_INGEST_AUDIT_DIGESTS === 'true';
  if (e.TOOLTRAIL_INGEST_DEDUP_WINDOW !== undefined) o.dedupWindow = e.TOOLTRAIL_INGEST_DEDUP_WINDOW;
  if (e.TOOLTRAIL_INGEST_POLICY_FILE) o.policyFile = e.TOOLTRAIL_INGEST_POLICY_FILE;
  if (e.TOOLTRAIL_PAYLOAD_HASH_KEY) o.payloadHashKey = e.TOOLTRAIL_PAYLOAD_HASH_KEY;
  return o;
}

export function applyOverrides(base: IngestConfig, o: IngestOverrides): IngestConfig {
  const c: IngestConfig = structuredClone(base);
  // structuredClone copies no class instance: the secrets are carried over as they are.
  c.clickhouse.password = base.clickhouse.password;
  c.kafka.sasl.password = base.kafka.sasl.password;
  if (base.emitters.payloadHashKey !== undefined) c.emitters.payloadHashKey = base.emitters.payloadHashKey;
  if (o.topic !== undefined) c.kafka.topic = o.topic;
  if (o.groupId !== undefined) c.kafka.groupId = o.groupId;
  if (o.deadLetterTopic !== undefined) c.kafka.deadLetterTopic = o.deadLetterTopic;
  if (o.createTopics !== undefined) c.kafka.createTopics = o.createTopics;
  if (o.sessionTimeoutMs !== undefined) c.kafka.sessionTimeoutMs = o.sessionTimeoutMs;
  if (o.database !== undefined) c.clickhouse.database = o.database;
  if (o.maxRows !== undefined) c.batch.maxRows = o.maxRows;
  if (o.maxBytes !== undefined) c.batch.maxBytes = o.maxBytes;
  if (o.lingerMs !== undefined) c.batch.lingerMs = o.lingerMs;
  if (o.defaultTenant !== undefined) c.defaultTenant = o.defaultTenant;
  if (o.metricsPort !== undefined) c.metrics.port = o.metricsPort;
  // Loopback by default; a container sets 0.0.0.0 so Prometheus can scrape it.
  if (o.metricsHost !== undefined) c.metrics.host = o.metricsHost;
  if (o.auditDigests !== undefined) c.auditDigests = o.auditDigests;
  if (o.dedupWindow !== undefined) c.dedupWindow = o.dedupWindow;
  if (o.policyFile !== undefined) c.emitters.policyFile = o.policyFile;
  if (o.payloadHashKey !== undefined) c.emitters.payloadHashKey = new Secret(o.payloadHashKey);
  return c;
}

/** Defaults, then the environment, then `flags`; validated. */
export function loadIngestConfig(flags: IngestOverrides = {}, env: NodeJS.ProcessEnv = process.env): IngestConfig {
  return validateIngestConfig(applyOverrides(applyOverrides(defaultIngestConfig(env), overridesFromEnv(env)), flags));
}
