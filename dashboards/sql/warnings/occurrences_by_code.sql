-- Warning occurrences over time by code.
SELECT
    $__timeInterval(time) AS time,
    code,
    count() AS occurrences
FROM tool_call_warnings
WHERE $__timeFilter(time)
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
GROUP BY time, code
ORDER BY time, code
