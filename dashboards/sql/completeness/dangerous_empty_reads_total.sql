-- How many incomplete-and-empty reads in the range.
SELECT count() AS dangerous_empty_reads
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND effect = 'read'
  AND NOT result_complete
  AND result_item_count = 0
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
