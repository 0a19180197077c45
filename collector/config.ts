/**
 * The collector's configuration: plain typed data, defaults in one function, validation as a separate step that
 * reports every problem at once, each naming its exact key (`collector.kafka.topic: must not be empty`).
 * Sources, later ones winning: defaults, a YAML/JSON file, the environment, command-line flags.
 */
import { accessSync, constants, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { TENANT_REGEX, TENANT_RULE } from '../contract/index.ts';
import { isLoopback } from '../platform/auth/loopback.ts';
import { splitTokenList, type TokenEntry } from '../platform/auth/tokens.ts';
import {
  DEFAULT_SPANS_TOPIC,
  DEFAULT_SPANS_TOPIC_PARTITIONS,
  loadConnectionSettings,
} from '../platform/connections.ts';
import { type KafkaSecurity, kafkaSecurityProblems, SASL_MECHANISMS } from '../platform/kafka/security.ts';
import {
  KAFKA_CLIENTS,
  KAFKA_COMPRESSIONS,
  type KafkaClientKind,
  type KafkaCompression,
} from '../platform/kafka/types.ts';
import { Secret } from '../platform/secret.ts';
import { DEFAULT_HOST, DEFAULT_PORT, METRICS_TOKEN_ENV, TOKENS_ENV } from './endpoint.ts';

export { DEFAULT_HOST, DEFAULT_PORT, METRICS_TOKEN_ENV, TOKENS_ENV };

/** The OpenTelemetry Collector Kafka exporter's default topic, so either can feed the same ingest. */
/** The spans topic both the collector and the ingest default to (platform/connections.ts). */
export const DEFAULT_TOPIC = DEFAULT_SPANS_TOPIC;
/** Largest request body after decompression; the OpenTelemetry Collector's default is 20 MiB. */
export const DEFAULT_MAX_BODY_BYTES = 16 * 1024 * 1024;
/** Largest request body as received (compressed or not). */
export const DEFAULT_MAX_WIRE_BYTES = 16 * 1024 * 1024;
export const DEFAULT_MAX_CONCURRENT_REQUESTS = 64;
/** Request bytes (as received, then decompressed) held at once: the memory the collector may hold for clients. */
export const DEFAULT_MAX_IN_FLIGHT_BYTES = 256 * 1024 * 1024;
/**
 * Bytes of the in-flight budget reserved for a request's decoded form, per byte of its (decompressed) body, from
 * the decode until the response: the decoded request is kept while the sink writes it. Measured here on tool spans
 * (a 17.8 MiB body): the full decode retains ~4.8x its protobuf body, the Kafka fast path ~2.4x.
 */
export const DEFAULT_DECODE_EXPANSION = 5;
/** One credential's share of the requests and bytes: a quarter, so it takes four credentials to fill the collector. */
export const DEFAULT_TENANT_SHARE = 0.25;
/** The request line and headers must arrive within this time (slow-headers clients). */
export const DEFAULT_HEADERS_TIMEOUT_MS = 10_000;
/** The whole request, headers and body, must arrive within this time (slow-body clients): 16 MiB at ~560 KiB/s. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
/** A connection silent for this long is closed, and a kept-alive one waits this long for its next request. */
export const DEFAULT_IDLE_TIMEOUT_MS = 30_000;
export const DEFAULT_THROTTLE_RETRY_AFTER_S = 1;
export const DEFAULT_UNAVAILABLE_RETRY_AFTER_S = 5;
/** How long a request waits for Kafka's acknowledgement before it is answered 503. */
export const DEFAULT_SEND_TIMEOUT_MS = 5_000;
/** A produce request carries at most this many bytes of messages; more waits for the next one. */
export const DEFAULT_BATCH_MAX_BYTES = 4 * 1024 * 1024;
export const DEFAULT_TOPIC_PARTITIONS = DEFAULT_SPANS_TOPIC_PARTITIONS;
export const DEFAULT_DECODE_THREADS = 0;
/**
 * One producer, whose batches grow while it waits for the broker: measured against 2 on this machine it used ~8%
 * less CPU per span for the same or better throughput. More help a remote broker with a long round trip.
 */
export const DEFAULT_PRODUCERS = 1;
export const DEFAULT_NO_AUTH_TENANT = 'default';

export type { TokenEntry };

export interface CollectorConfig {
  http: {
    /** Address to bind. Non-loopback addresses are refused in `auth.mode: none`. */
    host: string;
    port: number;
    headersTimeoutMs: number;
    requestTimeoutMs: number;
    idleTimeoutMs: number;
    /** HTTPS: on when `certFile` is set. */
    tls: {
      /** PEM server certificate (chain) and its key. */
      certFile?: string;
      keyFile?: string;
      /** PEM CA of client certificates; set, every client must present one it signed (mTLS). */
      clientCaFile?: string;
    };
  };
  auth: {
    /** `bearer`: tokens map to tenants. `none`: local development only, loopback only, one tenant. */
    mode: 'bearer' | 'none';
    tokens: TokenEntry[];
    /** The tenant stamped in `none` mode. */
    noAuthTenant: string;
  };
  limits: {
    maxWireBytes: number;
    maxBodyBytes: number;
    maxConcurrentRequests: number;
    maxInFlightBytes: number;
    /**
     * The fraction of `maxConcurrentRequests` and `maxInFlightBytes` one tenant may hold (at least one request and
     * one `maxBodyBytes` body), so one credential cannot starve the others.
     */
    tenantShare: number;
    /**
     * Bytes reserved for the decoded request per body byte (0: count the body only), so that decoded memory stays
     * within `maxInFlightBytes` too: a protobuf request decodes to several times its size.
     */
    decodeExpansion: number;
    /** `Retry-After` sent with 429 (the collector itself is saturated). */
    throttleRetryAfterSeconds: number;
  };
  metrics: {
    /** When set, `/metrics` needs `Authorization: Bearer <token>` (Prometheus' `authorization.credentials`). */
    token: string;
    /** Label per-tenant series with the tenant: names customers and their volumes, so only behind `token`. */
    tenantLabels: boolean;
  };
  /** Where accepted spans go: `kafka`, or `discard` (benchmarks: everything but Kafka). */
  sink: 'kafka' | 'discard';
  /**
   * Worker threads that decode, validate and split requests for sinks that take per-trace messages (Kafka); 0
   * does it on the main thread. Threads add ~20-50% CPU per span (transfers, a second heap) and pay off only when
   * the collector has cores to itself; sharing 2 cores with Kafka and the load, 0 did as well or better.
   */
  decodeThreads: number;
  kafka: {
    brokers: string[];
    topic: string;
    clientId: string;
    compression: KafkaCompression;
    /** Idempotent producers sending in parallel (each has one produce request in flight per broker). */
    producers: number;
    sendTimeoutMs: number;
    batchMaxBytes: number;
    /** `Retry-After` sent with 503 (Kafka slow or down). */
    unavailableRetryAfterSeconds: number;
    /** Create the topic at start when it is missing (a user's cluster may forbid it: then create it yourself). */
    createTopic: boolean;
    topicPartitions: number;
    /** TLS to the brokers: `enabled`, `caFile`, `certFile` + `keyFile` (mTLS). Default from TOOLTRAIL_KAFKA_TLS*. */
    tls: KafkaSecurity['tls'];
    /** SASL: `mechanism` (none, plain, scram-sha-256, scram-sha-512), `username`, `password`. Default from TOOLTRAIL_KAFKA_SASL_*. */
    sasl: KafkaSecurity['sasl'];
    /** The client library: `platformatic` (@platformatic/kafka), the only one. Default from TOOLTRAIL_KAFKA_CLIENT. */
    client: KafkaClientKind;
  };
}

/** The codec of the record batches the collector writes (docs/performance.md, "The Kafka client"). */
export const DEFAULT_KAFKA_COMPRESSION: KafkaCompression = 'zstd';

export function defaultCollectorConfig(env: NodeJS.ProcessEnv = process.env): CollectorConfig {
  const kafka = loadConnectionSettings(env).kafka;
  return {
    http: {
      host: DEFAULT_HOST,
      port: DEFAULT_PORT,
      headersTimeoutMs: DEFAULT_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: DEFAULT_REQUEST_TIMEOUT_MS,
      idleTimeoutMs: DEFAULT_IDLE_TIMEOUT_MS,
      tls: {},
    },
    auth: { mode: 'bearer', tokens: [], noAuthTenant: DEFAULT_NO_AUTH_TENANT },
    limits: {
      maxWireBytes: DEFAULT_MAX_WIRE_BYTES,
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      maxConcurrentRequests: DEFAULT_MAX_CONCURRENT_REQUESTS,
      maxInFlightBytes: DEFAULT_MAX_IN_FLIGHT_BYTES,
      tenantShare: DEFAULT_TENANT_SHARE,
      decodeExpansion: DEFAULT_DECODE_EXPANSION,
      throttleRetryAfterSeconds: DEFAULT_THROTTLE_RETRY_AFTER_S,
    },
    metrics: { token: '', tenantLabels: false },
    sink: 'kafka',
    decodeThreads: DEFAULT_DECODE_THREADS,
    kafka: {
      brokers: kafka.brokers,
      topic: DEFAULT_TOPIC,
      clientId: 'tooltrail-collector',
      compression: DEFAULT_KAFKA_COMPRESSION,
      producers: DEFAULT_PRODUCERS,
      sendTimeoutMs: DEFAULT_SEND_TIMEOUT_MS,
      batchMaxBytes: DEFAULT_BATCH_MAX_BYTES,
      unavailableRetryAfterSeconds: DEFAULT_UNAVAILABLE_RETRY_AFTER_S,
      createTopic: true,
      topicPartitions: DEFAULT_TOPIC_PARTITIONS,
      tls: kafka.security.tls,
      sasl: kafka.security.sasl,
      client: kafka.client,
    },
  };
}

const positiveInt = z.number().int().positive();
const nonEmpty = z.string().min(1, { error: 'must not be empty', abort: true });

const Schema = z.strictObject({
  http: z.strictObject({
    host: nonEmpty,
    port: z.number().int().min(0).max(65535),
    headersTimeoutMs: positiveInt,
    requestTimeoutMs: positiveInt,
    idleTimeoutMs: positiveInt,
    tls: z.strictObject({
      certFile: nonEmpty.optional(),
      keyFile: nonEmpty.optional(),
      clientCaFile: nonEmpty.optional(),
    }),
  }),
  auth: z.strictObject({
    mode: z.enum(['bearer', 'none']),
    tokens: z.array(
      z.strictObject({
        token: z.string().min(16, 'must be at least 16 characters'),
        tenant: z.string().regex(TENANT_REGEX, `must be ${TENANT_RULE}`),
      }),
    ),
    noAuthTenant: z.string().regex(TENANT_REGEX, `must be ${TENANT_RULE}`),
  }),
  limits: z.strictObject({
    maxWireBytes: positiveInt,
    maxBodyBytes: positiveInt,
    maxConcurrentRequests: positiveInt,
    maxInFlightBytes: positiveInt,
    tenantShare: z.number().gt(0, 'must be above 0').max(1, 'must be at most 1'),
    decodeExpansion: z.number().min(0, 'must be 0 or more').max(64, 'must be at most 64'),
    throttleRetryAfterSeconds: positiveInt,
  }),
  metrics: z.strictObject({
    token: z.string().refine((t) => t === '' || t.length >= 16, 'must be at least 16 characters'),
    tenantLabels: z.boolean(),
  }),
  sink: z.enum(['kafka', 'discard']),
  decodeThreads: z.number().int().min(0).max(16),
  kafka: z.strictObject({
    brokers: z.array(nonEmpty).min(1, 'must list at least one broker'),
    topic: nonEmpty.regex(/^[A-Za-z0-9._-]{1,249}$/, 'must be a valid Kafka topic name'),
    clientId: nonEmpty,
    compression: z.enum(KAFKA_COMPRESSIONS, { error: `must be one of ${KAFKA_COMPRESSIONS.join(', ')}` }),
    producers: positiveInt.max(16),
    sendTimeoutMs: positiveInt,
    batchMaxBytes: positiveInt,
    unavailableRetryAfterSeconds: positiveInt,
    createTopic: z.boolean(),
    topicPartitions: positiveInt,
    tls: z.strictObject({
      enabled: z.boolean(),
      caFile: nonEmpty.optional(),
      certFile: nonEmpty.optional(),
      keyFile: nonEmpty.optional(),
    }),
    sasl: z.strictObject({
      mechanism: z.enum(SASL_MECHANISMS),
      username: z.string(),
      password: z.instanceof(Secret, { error: 'must be a string' }),
    }),
    client: z.enum(KAFKA_CLIENTS, { error: `must be one of ${KAFKA_CLIENTS.join(', ')}` }),
  }),
});

export class CollectorConfigError extends Error {
  override name = 'CollectorConfigError';
  constructor(readonly problems: string[]) {
    super(`invalid collector configuration: ${problems.join('; ')}`);
  }
}

/** Every problem of a configuration, each as `collector.<key>: <what is wrong>`; empty when it is valid. */
export function validateCollectorConfig(config: unknown): string[] {
  const problems: string[] = [];
  const parsed = Schema.safeParse(config);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const key = ['collector', ...issue.path.map(String)].join('.');
      problems.push(`${key}: ${issue.message}`);
    }
    return problems;
  }
  const c = parsed.data;
  problems.push(...kafkaSecurityProblems(c.kafka, (field) => `collector.kafka.${field}`));
  problems.push(...httpTlsProblems(c.http.tls));
  if (c.auth.mode === 'bearer' && c.auth.tokens.length === 0) {
    problems.push(
      `collector.auth.tokens: bearer auth needs at least one token (set ${TOKENS_ENV}="token=tenant,..." or use auth.mode none for local development)`,
    );
  }
  if (c.auth.mode === 'none' && !isLoopback(c.http.host)) {
    problems.push(`collector.http.host: auth.mode none binds to loopback only, not ${c.http.host}`);
  }
  if (c.metrics.tenantLabels && c.metrics.token === '' && c.auth.mode === 'bearer') {
    problems.push(
      `collector.metrics.tenantLabels: tenant names would be served to anyone who reaches /metrics; set metrics.token (${METRICS_TOKEN_ENV})`,
    );
  }
  if (c.metrics.token !== '' && c.auth.tokens.some((t) => t.token === c.metrics.token)) {
    problems.push('collector.metrics.token: must differ from every auth.tokens token');
  }
  const seen = new Set<string>();
  c.auth.tokens.forEach((t, i) => {
    if (seen.has(t.token)) problems.push(`collector.auth.tokens.${i}.token: the same token is listed twice`);
    seen.add(t.token);
  });
  if (c.limits.maxInFlightBytes < c.limits.maxBodyBytes) {
    problems.push('collector.limits.maxInFlightBytes: must be at least limits.maxBodyBytes');
  }
  if (c.http.headersTimeoutMs > c.http.requestTimeoutMs) {
    problems.push('collector.http.headersTimeoutMs: must be at most http.requestTimeoutMs');
  }
  return problems;
}

function httpTlsProblems(tls: CollectorConfig['http']['tls']): string[] {
  const problems: string[] = [];
  if ((tls.certFile === undefined) !== (tls.keyFile === undefined)) {
    problems.push(
      `collector.http.tls.${tls.certFile === undefined ? 'certFile' : 'keyFile'}: HTTPS needs both http.tls.certFile and http.tls.keyFile`,
    );
  }
  if (tls.clientCaFile !== undefined && tls.certFile === undefined) {
    problems.push('collector.http.tls.clientCaFile: client certificates need HTTPS (http.tls.certFile and keyFile)');
  }
  for (const key of ['certFile', 'keyFile', 'clientCaFile'] as const) {
    const path = tls[key];
    if (path === undefined) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch (err) {
      problems.push(`collector.http.tls.${key}: cannot read ${path} (${(err as NodeJS.ErrnoException).code})`);
    }
  }
  return problems;
}

/** Parses `token1=tenantA,token2=tenantB` (the API's format); the schema checks each entry afterwards. */
export function parseTokenList(value: string, source = TOKENS_ENV): TokenEntry[] {
  const { entries, problems } = splitTokenList(value, source);
  if (problems.length > 0) throw new CollectorConfigError(problems);
  return entries.map(({ token, tenant }) => ({ token, tenant }));
}

type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends (infer U)[] ? U[] : T[K] extends object ? DeepPartial<T[K]> : T[K];
};
export type CollectorConfigInput = DeepPartial<CollectorConfig>;

function merge<T>(base: T, over: unknown): T {
  if (over === undefined) return base;
  if (typeof base !== 'object' || base === null || Array.isArray(base)) return over as T;
  // Only plain objects merge key by key: a class instance (a Secret) replaces what was there.
  if (typeof over !== 'object' || over === null || Object.getPrototypeOf(over) !== Object.prototype) return over as T;
  const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
  for (const [k, v] of Object.entries(over)) out[k] = merge(out[k], v);
  return out as T;
}

export interface LoadOptions {
  /** A YAML or JSON file whose top-level `collector:` key (or the whole document) is the configuration. */
  file?: string;
  env?: NodeJS.ProcessEnv;
  /** From command-line flags; wins over everything. */
  overrides?: CollectorConfigInput;
}

function fromEnv(env: NodeJS.ProcessEnv): CollectorConfigInput {
  const out: CollectorConfigInput = {};
  if (env.TOOLTRAIL_COLLECTOR_HOST) out.http = { host: env.TOOLTRAIL_COLLECTOR_HOST };
  if (env.TOOLTRAIL_COLLECTOR_PORT) {
    out.http = { ...out.http, port: Number(env.TOOLTRAIL_COLLECTOR_PORT) };
  }
  const tls = {
    ...(env.TOOLTRAIL_COLLECTOR_TLS_CERT_FILE ? { certFile: env.TOOLTRAIL_COLLECTOR_TLS_CERT_FILE } : {}),
    ...(env.TOOLTRAIL_COLLECTOR_TLS_KEY_FILE ? { keyFile: env.TOOLTRAIL_COLLECTOR_TLS_KEY_FILE } : {}),
    ...(env.TOOLTRAIL_COLLECTOR_TLS_CLIENT_CA_FILE ? { clientCaFile: env.TOOLTRAIL_COLLECTOR_TLS_CLIENT_CA_FILE } : {}),
  };
  if (Object.keys(tls).length > 0) out.http = { ...out.http, tls };
  if (env.TOOLTRAIL_COLLECTOR_TOPIC) out.kafka = { topic: env.TOOLTRAIL_COLLECTOR_TOPIC };
  const metricsToken = env[METRICS_TOKEN_ENV];
  if (metricsToken) out.metrics = { token: metricsToken };
  return out;
}

/** A file's `kafka.sasl.password` (a plain string) held as a Secret from here on, so no dump or error prints it. */
function withSecretPassword(config: unknown): unknown {
  const c = config as { kafka?: { sasl?: { password?: unknown } } };
  const password = c.kafka?.sasl?.password;
  if (typeof password !== 'string') return config;
  return { ...c, kafka: { ...c.kafka, sasl: { ...c.kafka?.sasl, password: new Secret(password) } } };
}

/** Builds and validates the configuration; throws CollectorConfigError listing every problem. */
export function loadCollectorConfig(options: LoadOptions = {}): CollectorConfig {
  const env = options.env ?? process.env;
  let config: unknown = defaultCollectorConfig(env);
  if (options.file) {
    let doc: unknown;
    try {
      doc = parseYaml(readFileSync(options.file, 'utf8'));
    } catch (err) {
      throw new CollectorConfigError([`${options.file}: ${(err as Error).message}`]);
    }
    const section =
      typeof doc === 'object' && doc !== null && 'collector' in doc ? (doc as { collector: unknown }).collector : doc;
    config = withSecretPassword(merge(config, section ?? {}));
  }
  config = merge(config, fromEnv(env));
  const envTokens = env[TOKENS_ENV];
  if (envTokens) {
    // Tokens from the environment add to the file's, so a secret store can hold some and the file others.
    const c = config as CollectorConfig;
    config = { ...c, auth: { ...c.auth, tokens: [...(c.auth?.tokens ?? []), ...parseTokenList(envTokens)] } };
  }
  config = withSecretPassword(merge(config, options.overrides));
  const problems = validateCollectorConfig(config);
  if (problems.length > 0) throw new CollectorConfigError(problems);
  return config as CollectorConfig;
}

/**
 * The reservation for a body's decoded form (limits.decodeExpansion), capped so that a lone request of the tenant
 * still fits its share: where the share is below maxBodyBytes x (1 + decodeExpansion) (the defaults: 64 MiB for
 * 16 MiB bodies) the largest bodies are counted only up to the share (README: size the budget for the whole bound).
 */
export function decodedReservation(bodyBytes: number, limits: CollectorConfig['limits']): number {
  const room = Math.max(0, tenantLimits(limits).bytes - bodyBytes);
  return Math.min(Math.ceil(bodyBytes * limits.decodeExpansion), room);
}

/** One tenant's slots and bytes under `limits.tenantShare`: never less than one request and one largest body. */
export function tenantLimits(limits: CollectorConfig['limits']): { requests: number; bytes: number } {
  return {
    requests: Math.max(1, Math.floor(limits.maxConcurrentRequests * limits.tenantShare)),
    bytes: Math.min(
      limits.maxInFlightBytes,
      Math.max(limits.maxBodyBytes, Math.floor(limits.maxInFlightBytes * limits.tenantShare)),
    ),
  };
}
