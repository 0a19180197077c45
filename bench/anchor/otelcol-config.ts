/**
 * What compare.ts needs around the anchor OpenTelemetry Collector: its two pipeline configs (generated per run, so
 * topics, groups, databases and ports are the run's own) and the reading of its Prometheus self-metrics.
 */

export interface OtelKafkaOut {
  otlpPort: number;
  metricsPort: number;
  brokers: string[];
  topic: string;
  /** The codec tooltrail's collector writes with, and its level there (the anchor is set the same). */
  compression: { codec: 'gzip' | 'zstd' | 'lz4' | 'none'; level: number | undefined };
}

export interface OtelClickHouseOut {
  metricsPort: number;
  brokers: string[];
  topic: string;
  groupId: string;
  endpoint: string;
  database: string;
  user: string;
  password: string;
}

function telemetry(metricsPort: number): string {
  return `  telemetry:
    logs: { level: warn }
    metrics:
      level: basic
      readers:
        - pull:
            exporter:
              prometheus: { host: 127.0.0.1, port: ${metricsPort} }
`;
}

const yamlList = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(', ')}]`;

/**
 * OTLP/HTTP -> batch -> Kafka, set as tooltrail's collector writes: acks from all in-sync replicas, the same codec at
 * the same level (the CPU comparison stays like with like: the level moves both sides' CPU), keyed by trace id (one
 * trace stays in one partition). The exporter's queue blocks when full instead of dropping, so every span the
 * receiver accepted reaches Kafka (the bench waits for sent_spans to reach what it sent).
 */
export function otelKafkaConfig(o: OtelKafkaOut): string {
  return `receivers:
  otlp:
    protocols:
      http:
        endpoint: 127.0.0.1:${o.otlpPort}
processors:
  batch: {}
exporters:
  kafka:
    brokers: ${yamlList(o.brokers)}
    traces:
      topic: ${JSON.stringify(o.topic)}
      encoding: otlp_proto
    partition_traces_by_id: true
    producer:
      required_acks: -1
      compression: ${o.compression.codec}${o.compression.level === undefined ? '' : `\n      compression_params:\n        level: ${o.compression.level}`}
    sending_queue:
      block_on_overflow: true
service:
${telemetry(o.metricsPort)}  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [kafka]
`;
}

/** Kafka (from the earliest offset) -> batch -> ClickHouse over HTTP, the exporter's own schema and defaults. */
export function otelClickHouseConfig(o: OtelClickHouseOut): string {
  return `receivers:
  kafka:
    brokers: ${yamlList(o.brokers)}
    traces:
      topics: [${JSON.stringify(o.topic)}]
      encoding: otlp_proto
    group_id: ${JSON.stringify(o.groupId)}
    initial_offset: earliest
processors:
  batch: {}
exporters:
  clickhouse:
    endpoint: ${JSON.stringify(o.endpoint)}
    database: ${JSON.stringify(o.database)}
    username: ${JSON.stringify(o.user)}
    password: ${JSON.stringify(o.password)}
    create_schema: true
service:
${telemetry(o.metricsPort)}  pipelines:
    traces:
      receivers: [kafka]
      processors: [batch]
      exporters: [clickhouse]
`;
}

/**
 * Sum of a Prometheus counter over all its label sets (`otelcol_exporter_sent_spans` matches with or without the
 * `_total` suffix the exporter may add). 0 when absent.
 */
export function promCounter(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m || (m[1] !== name && m[1] !== `${name}_total`)) continue;
    const v = Number(m[3]);
    if (Number.isFinite(v)) sum += v;
  }
  return sum;
}
