-- The cursor traversals of this session (semconv 1.5.0): the pages it read cursor after cursor, each traversal as one
-- read with where it stands as a whole, by the detectors' rule (alerts/detectors/fragments/traversal_complete.sql):
-- complete when its first page, every position after it, one snapshot, no break and a complete last page are stored.
SELECT
    time,
    tool,
    pages,
    multiIf(
        has_first AND pages = positions AND broke = '' AND snapshots <= 1 AND last_complete,
            concat(toString(pages), ' pages, complete', if(snapshots = 1, concat(' over snapshot ', snapshot), '')),
        broke != '', concat('broke at page ', toString(broke_at), ': ', broke),
        snapshots > 1, concat('broke: its pages are of ', toString(snapshots), ' snapshots (', snapshot, ')'),
        NOT has_first, 'its first page is not stored: where it began is unknown',
        pages != positions, 'a page is missing',
        concat('stopped at page ', toString(pages), ' (', last_reasons, '): the rest was not read')) AS status,
    snapshot,
    items,
    traversal
FROM
(
    SELECT
        traversal,
        min(start_time) AS time,
        any(tool_name) AS tool,
        max(page) AS pages,
        uniqExact(page) AS positions,
        countIf(first) > 0 AS has_first,
        anyIf(page_break, page_break != '') AS broke,
        minIf(page, page_break != '') AS broke_at,
        uniqExactIf(scope_snapshot, scope_snapshot != '') AS snapshots,
        arrayStringConcat(groupUniqArrayIf(scope_snapshot, scope_snapshot != ''), ', ') AS snapshot,
        argMax(result_complete, (page, start_time, seq)) AS last_complete,
        arrayStringConcat(argMax(result_reasons, (page, start_time, seq)), ', ') AS last_reasons,
        sum(ifNull(result_item_count, 0)) AS items
    FROM
    (
        SELECT
            start_time, ifNull(sequence, 0) AS seq, tool_name, scope_snapshot, result_item_count, result_complete,
            result_reasons,
            attributes['tooltrail.traversal.id'] AS traversal_id,
            if(traversal_id = '', if(tool_call_id = '', span_id, tool_call_id), traversal_id) AS traversal,
            greatest(toUInt64OrZero(attributes['tooltrail.traversal.page']), 1) AS page,
            if(attributes['tooltrail.traversal.break'] != '', attributes['tooltrail.traversal.break'],
               if(has(result_reasons, 'CURSOR_EXPIRED'), 'CURSOR_EXPIRED', '')) AS page_break,
            page_break = '' AND toUInt64OrZero(attributes['tooltrail.traversal.page']) <= 1
                AND traversal_id IN ('', tool_call_id) AS first
        FROM tool_calls
        WHERE $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
          AND (session_id = ${session:singlequote} OR (session_id = '' AND trace_id = ${session:singlequote}))
          AND effect = 'read'
    )
    GROUP BY traversal
    HAVING countIf(traversal_id != '') > 0
)
ORDER BY time
LIMIT 500
