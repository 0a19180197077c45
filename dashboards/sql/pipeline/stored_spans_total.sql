-- Spans stored in the range (tool calls and other spans).
SELECT
    (SELECT count() FROM tool_calls
     WHERE $__timeFilter(ingested_at) AND start_time >= $__fromTime - INTERVAL 1 DAY AND start_time <= $__toTime)
  + (SELECT count() FROM spans
     WHERE $__timeFilter(IngestedAt) AND Timestamp >= $__fromTime - INTERVAL 1 DAY AND Timestamp <= $__toTime)
    AS spans_stored
