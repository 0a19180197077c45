-- Incremental detection (alerts/README.md, "The evaluator"): each run judges what ARRIVED since its watermark and
-- looks the arrived sessions up by their primary key, so its cost follows new traffic, not the history.
--   detector_arrivals        per insert block, one row per (tenant, session) that received a read or a mutation,
--                            with when it arrived (ingested_at, set here at insert) and the earliest start_time it
--                            brought: the run re-judges that session's mutations from there on
--   detector_complete_reads  complete reads ordered by session (detector_complete_evidence is ordered by time, which
--                            suits a range scan, not a lookup of one session's evidence)
-- Retried inserts: as in 0014, the views' blocks are deduplicated with the source's insert_deduplication_token.
-- Backfill: complete reads already stored are copied below (run before the ingest starts, as 0014). Arrivals are
-- not: an evaluator without an arrival watermark judges its whole active horizon once, then goes incremental.
CREATE TABLE IF NOT EXISTS {{database}}.detector_arrivals {{on_cluster}}
(
    tenant      LowCardinality(String),
    session     String COMMENT 'session_id, or trace_id when the span had none',
    start_time  DateTime64(9, 'UTC') COMMENT 'the earliest start_time of the session''s rows in this insert block',
    ingested_at DateTime64(3, 'UTC') DEFAULT now64(3) COMMENT 'when the block was stored: the evaluator''s watermark axis'
)
ENGINE = {{engine}}
PARTITION BY toDate(ingested_at)
ORDER BY (ingested_at, tenant)
TTL toDateTime(ingested_at) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS {{database}}.detector_complete_reads {{on_cluster}}
(
    tenant         LowCardinality(String),
    session        String COMMENT 'session_id, or trace_id when the span had none',
    start_time     DateTime64(9, 'UTC'),
    seq            UInt64 COMMENT 'ifNull(sequence, 0)',
    span_id        String,
    tool_call_id   String,
    scope_resource LowCardinality(String),
    scope_snapshot String
)
ENGINE = {{engine}}
PARTITION BY toDate(start_time)
ORDER BY (tenant, session, start_time, span_id)
TTL toDateTime(start_time) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_arrivals_mv {{on_cluster}}
TO {{database}}.detector_arrivals AS
SELECT tenant, if(session_id = '', trace_id, session_id) AS session, min(start_time) AS start_time
FROM {{database}}.tool_calls
WHERE effect IN ('read', 'mutation')
GROUP BY tenant, session;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_complete_reads_mv {{on_cluster}}
TO {{database}}.detector_complete_reads AS
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, start_time, ifNull(sequence, 0) AS seq, span_id,
    tool_call_id, scope_resource, scope_snapshot
FROM {{database}}.tool_calls
WHERE effect = 'read' AND result_complete;

INSERT INTO {{database}}.detector_complete_reads
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, start_time, ifNull(sequence, 0) AS seq, span_id,
    tool_call_id, scope_resource, scope_snapshot
FROM {{database}}.tool_calls
WHERE effect = 'read' AND result_complete;
