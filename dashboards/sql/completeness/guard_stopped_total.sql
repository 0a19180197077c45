-- Mutations the guard refused or sent for review in the range.
SELECT countIf(guard_decision IN ('refused', 'review_requested')) AS stopped_by_guard
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND effect = 'mutation'
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
