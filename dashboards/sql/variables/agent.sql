-- Agents (gen_ai.agent.name) of the selected tenants in the time range.
SELECT DISTINCT agent_name
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND agent_name != ''
ORDER BY agent_name
