-- What the mutation guard decided for each mutation; 'no guard' when none ran.
SELECT
    $__timeInterval(start_time) AS time,
    if(guard_decision = '', 'no guard', guard_decision) AS decision,
    count() AS mutations
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND effect = 'mutation'
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
GROUP BY time, decision
ORDER BY time, decision
