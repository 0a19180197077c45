-- The tools whose reads were most often incomplete, with their most frequent reason.
SELECT
    tool_name AS tool,
    count() AS reads,
    countIf(NOT result_complete) AS incomplete_reads,
    countIf(NOT result_complete) / count() AS incomplete_rate,
    countIf(NOT result_complete AND result_item_count = 0) AS dangerous_empty_reads,
    topKIf(1)(if(complete_reported, arrayStringConcat(result_reasons, ', '), 'COMPLETENESS_UNKNOWN'),
              NOT result_complete)[1] AS top_reason
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND effect = 'read'
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
GROUP BY tool_name
HAVING incomplete_reads > 0
ORDER BY incomplete_reads DESC, tool
LIMIT 10
