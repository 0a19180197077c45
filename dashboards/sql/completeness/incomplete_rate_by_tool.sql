-- Share of reads per tool whose result was not complete (unknown completeness counts as incomplete).
SELECT
    $__timeInterval(start_time) AS time,
    tool_name,
    countIf(NOT result_complete) / count() AS incomplete_rate
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND effect = 'read'
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
GROUP BY time, tool_name
ORDER BY time, tool_name
