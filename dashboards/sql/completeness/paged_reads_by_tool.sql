-- Paged reads by tool (semconv 1.5.0): the cursor traversals the agents read page after page, each counted as one
-- read: how many reached a complete last page over one snapshot, how many stopped short (and at which page on
-- average), how many broke (a snapshot change, an expired cursor, a cursor the session never received, a page skipped).
SELECT
    tool,
    count() AS paged_reads,
    countIf(outcome = 'complete') AS complete,
    countIf(outcome = 'stopped short') AS stopped_short,
    avgIf(pages, outcome = 'stopped short') AS stopped_at_page_avg,
    countIf(outcome = 'broke') AS broke,
    topKIf(1)(broke_reason, outcome = 'broke')[1] AS top_break,
    avg(pages) AS pages_avg
FROM
(
    SELECT
        any(tool_name) AS tool,
        max(page) AS pages,
        anyIf(page_break, page_break != '') AS broke_reason,
        multiIf(
            broke_reason != '' OR uniqExactIf(scope_snapshot, scope_snapshot != '') > 1
                OR countIf(first) = 0 OR max(page) != uniqExact(page), 'broke',
            argMax(result_complete, (page, start_time, seq)), 'complete',
            'stopped short') AS outcome
    FROM
    (
        SELECT
            tenant, if(session_id = '', trace_id, session_id) AS session, start_time, ifNull(sequence, 0) AS seq,
            tool_name, scope_snapshot, result_complete,
            attributes['tooltrail.traversal.id'] AS traversal_id,
            if(traversal_id = '', if(tool_call_id = '', span_id, tool_call_id), traversal_id) AS traversal,
            greatest(toUInt64OrZero(attributes['tooltrail.traversal.page']), 1) AS page,
            if(attributes['tooltrail.traversal.break'] != '', attributes['tooltrail.traversal.break'],
               if(has(result_reasons, 'CURSOR_EXPIRED'), 'CURSOR_EXPIRED', '')) AS page_break,
            page_break = '' AND toUInt64OrZero(attributes['tooltrail.traversal.page']) <= 1
                AND traversal_id IN ('', tool_call_id) AS first
        FROM tool_calls
        WHERE $__timeFilter(start_time)
          AND effect = 'read'
          AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
          AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
          AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
    )
    GROUP BY tenant, session, traversal
    HAVING countIf(traversal_id != '') > 0
)
GROUP BY tool
ORDER BY paged_reads DESC, tool
LIMIT 20
