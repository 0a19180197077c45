-- Reads that returned nothing AND were not complete: the result that persuades an agent a problem does not exist.
SELECT
    $__timeInterval(start_time) AS time,
    tool_name,
    count() AS dangerous_empty_reads
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND effect = 'read'
  AND NOT result_complete
  AND result_item_count = 0
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
GROUP BY time, tool_name
ORDER BY time, tool_name
