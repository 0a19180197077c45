-- End-to-end delay of tool spans: from the end of the span (in the agent) to the row stored in ClickHouse
-- (collector, Kafka, ingest and insert included), by when they were stored.
SELECT
    $__timeInterval(ingested_at) AS time,
    quantile(0.5)(delay_s) AS p50,
    quantile(0.95)(delay_s) AS p95,
    max(delay_s) AS max
FROM
(
    SELECT
        ingested_at,
        (toUnixTimestamp64Milli(ingested_at) - toUnixTimestamp64Milli(toDateTime64(end_time, 3))) / 1000 AS delay_s
    FROM tool_calls
    WHERE $__timeFilter(ingested_at)
      AND start_time >= $__fromTime - INTERVAL 1 DAY AND start_time <= $__toTime
)
GROUP BY time
ORDER BY time
