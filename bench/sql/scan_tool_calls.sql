-- The detector's baseline: one pass over the columns it reads, every read and mutation, nothing joined.
SELECT count(), sum(length(session_id)), sum(length(trace_id)), sum(length(span_id)),
       sum(length(scope_snapshot)), sum(length(tool_call_id)), sum(result_complete), max(start_time)
FROM {db:Identifier}.tool_calls
WHERE effect IN ('read', 'mutation')
