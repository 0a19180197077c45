-- Rows stored per second, by table, from when ClickHouse stored them (ingested_at). Spans may arrive late:
-- rows whose span started more than a day before the range are not counted (it keeps the scan to the
-- partitions of the range, which are by span start time).
SELECT
    time,
    table,
    count() / $__interval_s AS rows_per_second
FROM
(
    SELECT $__timeInterval(ingested_at) AS time, 'tool_calls' AS table
    FROM tool_calls
    WHERE $__timeFilter(ingested_at)
      AND start_time >= $__fromTime - INTERVAL 1 DAY AND start_time <= $__toTime
    UNION ALL
    SELECT $__timeInterval(IngestedAt) AS time, 'spans' AS table
    FROM spans
    WHERE $__timeFilter(IngestedAt)
      AND Timestamp >= $__fromTime - INTERVAL 1 DAY AND Timestamp <= $__toTime
    UNION ALL
    SELECT $__timeInterval(ingested_at) AS time, 'tool_call_warnings' AS table
    FROM tool_call_warnings
    WHERE $__timeFilter(ingested_at)
      AND time >= $__fromTime - INTERVAL 1 DAY AND time <= $__toTime
)
GROUP BY time, table
ORDER BY time, table
