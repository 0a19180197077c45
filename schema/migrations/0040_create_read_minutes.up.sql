-- A per-minute rollup of reads for dangerous_empty_reads (alerts/detectors/dangerous_empty_reads.sql): one row per
-- (minute, tenant, read tool) once merged, with the minute's reads and, per incomplete reason, how many of them came
-- back incomplete and empty, so the detector's trailing hour reads ~60 rows per tool instead of every read (at
-- 5,000 spans/s, 18M rows a run). Ordered by minute first: the evaluator reads one time range for every tenant.
-- Filled by a materialized view at insert time, as warning_days (0019): AggregatingMergeTree merges the rows of one
-- minute (the detector still aggregates, as parts may not be merged yet); a late read is counted in its own minute
-- when it arrives. Retried inserts are deduplicated as in 0014. Reasons are summed as (keys, counts) arrays, not a
-- Map: a read that repeats a reason counts once per repetition, as the raw query's ARRAY JOIN does.
-- Backfill: the INSERT ... SELECT at the end rolls up the reads already stored (run before the ingest starts).
-- 0040-0049: the alerts' second block of numbers (0010-0019 is full).
CREATE TABLE IF NOT EXISTS {{database}}.read_minutes {{on_cluster}}
(
    minute           DateTime64(0, 'UTC') COMMENT 'toStartOfMinute(start_time)',
    tenant           LowCardinality(String),
    tool_name        LowCardinality(String),
    reads            SimpleAggregateFunction(sum, UInt64),
    incomplete_empty SimpleAggregateFunction(sumMap, Tuple(Array(String), Array(UInt64)))
        COMMENT 'per reason (COMPLETENESS_UNKNOWN when unreported; empty string when none): incomplete empty reads'
)
ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toDate(minute)
ORDER BY (minute, tenant, tool_name)
TTL toDateTime(minute) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.read_minutes_mv {{on_cluster}}
TO {{database}}.read_minutes AS
SELECT
    toStartOfMinute(start_time) AS minute, tenant, tool_name, count() AS reads,
    sumMap(if(incomplete_empty, reasons, []), if(incomplete_empty, arrayMap(r -> toUInt64(1), reasons), []))
        AS incomplete_empty
FROM
(
    SELECT
        start_time, tenant, tool_name,
        NOT result_complete AND ifNull(result_item_count = 0, false) AS incomplete_empty,
        arrayMap(r -> toString(r), if(complete_reported, result_reasons,
                                      arrayConcat(['COMPLETENESS_UNKNOWN'], result_reasons))) AS said,
        if(empty(said), [''], said) AS reasons
    FROM {{database}}.tool_calls
    WHERE effect = 'read'
)
GROUP BY minute, tenant, tool_name;

INSERT INTO {{database}}.read_minutes
SELECT
    toStartOfMinute(start_time) AS minute, tenant, tool_name, count() AS reads,
    sumMap(if(incomplete_empty, reasons, []), if(incomplete_empty, arrayMap(r -> toUInt64(1), reasons), []))
        AS incomplete_empty
FROM
(
    SELECT
        start_time, tenant, tool_name,
        NOT result_complete AND ifNull(result_item_count = 0, false) AS incomplete_empty,
        arrayMap(r -> toString(r), if(complete_reported, result_reasons,
                                      arrayConcat(['COMPLETENESS_UNKNOWN'], result_reasons))) AS said,
        if(empty(said), [''], said) AS reasons
    FROM {{database}}.tool_calls
    WHERE effect = 'read'
)
GROUP BY minute, tenant, tool_name
SETTINGS max_partitions_per_insert_block = 1000;
