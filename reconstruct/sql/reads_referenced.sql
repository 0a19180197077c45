-- Stored calls a mutation names as evidence, by tool call id or by snapshot token, anywhere in the tenant (the
-- bloom filter indexes on tool_call_id and scope_snapshot serve both).
SELECT
    {{include:stored_call_columns}}
FROM {db:Identifier}.tool_calls
WHERE tenant = {tenant:String}
  AND (tool_call_id IN {call_ids:Array(String)} OR scope_snapshot IN {snapshots:Array(String)})
ORDER BY start_time, span_id
LIMIT 1 BY trace_id, span_id
LIMIT 1000
