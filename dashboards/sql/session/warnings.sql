-- Warnings the tools attached to their results in this session (confidence, freshness, interpretation).
SELECT
    time,
    tool_name AS tool,
    code,
    source,
    message
FROM tool_call_warnings
WHERE $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND (session_id = ${session:singlequote} OR (session_id = '' AND trace_id = ${session:singlequote}))
ORDER BY time
LIMIT 2000
