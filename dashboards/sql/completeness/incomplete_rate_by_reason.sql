-- Share of all reads that were incomplete for each reason. A read that said nothing about completeness counts
-- under COMPLETENESS_UNKNOWN (as the detectors count it); one that said false without a reason under
-- '(no reason given)'. A read with several reasons counts once under each.
SELECT
    time,
    reason,
    count() / any(reads) AS share_of_reads
FROM
(
    SELECT
        $__timeInterval(start_time) AS time,
        if(result_complete, [],
           if(complete_reported,
              if(empty(result_reasons), ['(no reason given)'], result_reasons),
              arrayDistinct(arrayConcat(['COMPLETENESS_UNKNOWN'], result_reasons)))) AS reasons,
        count() OVER (PARTITION BY time) AS reads
    FROM tool_calls
    WHERE $__timeFilter(start_time)
      AND effect = 'read'
      AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
      AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
      AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
)
ARRAY JOIN reasons AS reason
GROUP BY time, reason
ORDER BY time, reason
