-- What the agent could not see in this session: every read that was not complete, and why.
SELECT
    start_time AS time,
    tool_name AS tool,
    if(complete_reported, 'incomplete', 'unknown (counts as incomplete)') AS completeness,
    result_item_count AS items,
    if(complete_reported, arrayStringConcat(result_reasons, ', '), 'COMPLETENESS_UNKNOWN') AS reasons,
    result_continuation AS continuation,
    scope_resource AS resource,
    scope_visibility AS visibility,
    scope_snapshot AS snapshot
FROM tool_calls
WHERE $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND (session_id = ${session:singlequote} OR (session_id = '' AND trace_id = ${session:singlequote}))
  AND effect = 'read'
  AND NOT result_complete
ORDER BY start_time, ifNull(sequence, 0), span_id
LIMIT 2000
