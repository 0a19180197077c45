-- Every mutation finding in the range, worst first. session_id links to the session's reconstruction.
SELECT
    event_time AS time,
    severity,
    kind,
    tenant,
    session_id,
    tool_name AS tool,
    agent_name AS agent,
    scope_resource AS resource,
    mutation_basis AS basis,
    target_count,
    if(guard_decision = '', 'no guard', guard_decision) AS guard,
    arrayStringConcat(reasons, ', ') AS reasons,
    arrayStringConcat(arrayDistinct(read_tool_names), ', ') AS incomplete_reads_from,
    if(owner = '', 'UNOWNED', owner) AS owner,
    if(resolved_at IS NULL, alert_status, 'resolved') AS status,
    trace_id
FROM findings FINAL
WHERE kind IN ('mutation_after_incomplete_read', 'absence_mutation_without_complete_evidence')
  AND $__timeFilter(event_time)
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
ORDER BY score DESC, event_time DESC
LIMIT 500
