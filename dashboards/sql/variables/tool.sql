-- Tools (gen_ai.tool.name) of the selected tenants and agents in the time range.
SELECT DISTINCT tool_name
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND tool_name != ''
ORDER BY tool_name
