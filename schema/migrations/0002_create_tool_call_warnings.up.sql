-- One row per warning occurrence (a `tooltrail.warning` span event on a tool span).
--
-- ORDER BY (tenant, code, source, time): the persistent-warning detector groups by (code, source) and counts
-- distinct days over months; this key makes that a scan of contiguous ranges.
CREATE TABLE IF NOT EXISTS {{database}}.tool_call_warnings {{on_cluster}}
(
    tenant      LowCardinality(String),
    time        DateTime64(9, 'UTC') COMMENT 'event time (span start when the event has none)',
    code        LowCardinality(String) COMMENT 'warning code, e.g. STALE_INDEX',
    source      String COMMENT 'the index, API or field the warning is about',
    message     String,
    tool_name   LowCardinality(String),
    agent_name  LowCardinality(String),
    session_id  String,
    trace_id    String,
    span_id     String,
    ingested_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = {{engine}}
PARTITION BY toDate(time)
ORDER BY (tenant, code, source, time)
TTL toDateTime(time) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;
