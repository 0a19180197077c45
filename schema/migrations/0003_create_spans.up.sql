-- Every span that is not a tool call, shaped like the OpenTelemetry Collector ClickHouse exporter's otel_traces
-- (same column names and types), plus Tenant. Reconstruction reads it for the context around tool calls
-- (the agent's turn, the LLM call that chose the tool).
--
-- ORDER BY (Tenant, ServiceName, SpanName, toDateTime(Timestamp)) follows otel_traces; trace lookups use the
-- bloom filter on TraceId.
CREATE TABLE IF NOT EXISTS {{database}}.spans {{on_cluster}}
(
    Tenant             LowCardinality(String),
    Timestamp          DateTime64(9, 'UTC'),
    TraceId            String,
    SpanId             String,
    ParentSpanId       String,
    TraceState         String,
    SpanName           LowCardinality(String),
    SpanKind           LowCardinality(String),
    ServiceName        LowCardinality(String),
    ResourceAttributes Map(LowCardinality(String), String),
    ScopeName          String,
    ScopeVersion       String,
    SpanAttributes     Map(LowCardinality(String), String),
    Duration           UInt64 COMMENT 'nanoseconds',
    StatusCode         LowCardinality(String),
    StatusMessage      String,
    `Events.Timestamp`  Array(DateTime64(9, 'UTC')),
    `Events.Name`       Array(LowCardinality(String)),
    `Events.Attributes` Array(Map(LowCardinality(String), String)),
    `Links.TraceId`     Array(String),
    `Links.SpanId`      Array(String),
    `Links.TraceState`  Array(String),
    `Links.Attributes`  Array(Map(LowCardinality(String), String)),
    IngestedAt         DateTime64(3, 'UTC') DEFAULT now64(3),

    INDEX idx_trace_id TraceId TYPE bloom_filter(0.001) GRANULARITY 1
)
ENGINE = {{engine}}
PARTITION BY toDate(Timestamp)
ORDER BY (Tenant, ServiceName, SpanName, toDateTime(Timestamp))
TTL toDateTime(Timestamp) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;
