-- Mutation findings in the range with no owner (they page the escalation receiver).
SELECT count() AS unowned
FROM findings FINAL
WHERE kind IN ('mutation_after_incomplete_read', 'absence_mutation_without_complete_evidence')
  AND owner = ''
  AND $__timeFilter(event_time)
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
