-- Critical mutation findings in the range that are still open (not resolved).
SELECT count() AS open_critical
FROM findings FINAL
WHERE kind IN ('mutation_after_incomplete_read', 'absence_mutation_without_complete_evidence')
  AND severity = 'critical'
  AND resolved_at IS NULL
  AND $__timeFilter(event_time)
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
