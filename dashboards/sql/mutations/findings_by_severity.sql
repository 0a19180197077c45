-- Mutations that followed incomplete reads, by severity, at the time of the mutation (latest finding version).
SELECT
    $__timeInterval(event_time) AS time,
    severity,
    count() AS findings
FROM findings FINAL
WHERE kind IN ('mutation_after_incomplete_read', 'absence_mutation_without_complete_evidence')
  AND $__timeFilter(event_time)
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
GROUP BY time, severity
ORDER BY time, severity
