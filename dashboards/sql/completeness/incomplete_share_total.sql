-- Share of reads in the range that were not complete.
SELECT countIf(NOT result_complete) / count() AS incomplete_reads
FROM tool_calls
WHERE $__timeFilter(start_time)
  AND effect = 'read'
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
  AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
