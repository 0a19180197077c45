-- Fragment (the CTEs `pairs`, `traversals`, `judged`, `scored` and the final SELECT; needs `absence_mutations` and
-- `reads`): the judgement of absence_mutation_without_complete_evidence (its rule is stated there), shared by its
-- range and its incremental detector, which differ only in which mutations and reads they feed it.
--   absence_mutations: tenant, session, trace_id, span_id, tool_call_id, start_time, seq, tool_name, agent_name,
--     scope_resource, mutation_basis, mutation_target_count, guard_decision, evidence_snapshots, evidence_call_ids
--   reads: tenant, session, span_id, tool_call_id, start_time, seq, scope_resource, scope_snapshot, result_complete,
--     result_reasons, traversal_key, traversal_hash, traversal_page, traversal_break, traversal_first (a read no
--     attribute links to a cursor traversal: hash 0, its call id, position 0, no break, first)
-- Each absence mutation paired with the reads of its session. RIGHT JOIN: the absence mutations are the hash table,
-- the reads stream past once, and a mutation with no read at all is kept once (its r.* then hold default values,
-- which fail the window test).
pairs AS
(
    SELECT
        m.tenant AS tenant, m.session AS session, m.trace_id AS trace_id, m.span_id AS mutation_span_id,
        m.tool_call_id AS mutation_tool_call_id, m.start_time AS mutation_time, m.tool_name AS tool_name,
        m.agent_name AS agent_name, m.scope_resource AS scope_resource, m.mutation_basis AS mutation_basis,
        m.mutation_target_count AS target_count, m.guard_decision AS guard_decision,
        m.evidence_snapshots AS evidence_snapshots, m.evidence_call_ids AS evidence_call_ids,
        r.traversal_hash != 0 AS paged, if(paged, r.traversal_key, '') AS unit, r.tool_call_id AS read_call_id,
        r.result_complete AS read_complete,
        r.tenant = m.tenant AND r.session = m.session
            AND (r.start_time, r.seq) < (m.start_time, m.seq)
            AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32}) AS in_window,
        in_window AND paged AS t_in,
        (
            {{include:concerns_mutation}}
            OR (paged AND has(m.evidence_call_ids, r.traversal_key))) AS concerns,
        r.scope_resource != '' AND r.scope_resource = m.scope_resource AS same_resource,
        r.scope_snapshot != '' AND has(m.evidence_snapshots, r.scope_snapshot) AS named_snapshot,
        r.tool_call_id != '' AND has(m.evidence_call_ids, r.tool_call_id) AS named_call,
        {{include:page_columns}}
    FROM reads AS r
    RIGHT JOIN absence_mutations AS m ON r.tenant = m.tenant AND r.session = m.session
),
-- Per mutation, its reads as units: each linked traversal (its pages together: whether one concerns the mutation,
-- whether it was complete before it, which declared snapshots and call ids it stands for), and unit '' for the
-- reads judged alone, counted read by read as before traversals existed (so the per-traversal state is kept for
-- pages only).
units AS
(
    SELECT
        tenant, session, trace_id, mutation_span_id, unit, any(paged) AS of_pages,
        any(mutation_tool_call_id) AS mutation_tool_call_id, any(mutation_time) AS mutation_time,
        any(tool_name) AS tool_name, any(agent_name) AS agent_name, any(scope_resource) AS scope_resource,
        any(mutation_basis) AS mutation_basis, any(target_count) AS target_count,
        any(guard_decision) AS guard_decision,
        any(evidence_snapshots) AS evidence_snapshots, any(evidence_call_ids) AS evidence_call_ids,
        -- A traversal.
        countIf(t_in AND concerns) > 0 AS concerning,
        {{include:traversal_complete}} AS complete,
        countIf(t_in AND same_resource) > 0 AS covers_resource,
        arrayFilter(s -> has(evidence_snapshots, s), groupUniqArrayIf(t_snapshot, t_in AND t_snapshot != ''))
            AS named_snapshots,
        arrayFilter(c -> has(evidence_call_ids, c),
            arrayConcat(groupUniqArrayIf(read_call_id, t_in AND read_call_id != ''), [unit])) AS named_calls,
        -- Reads judged alone.
        countIf(in_window AND NOT paged AND NOT read_complete AND concerns) AS alone_incomplete,
        groupUniqArrayIf(t_snapshot, in_window AND NOT paged AND read_complete AND named_snapshot) AS alone_snapshots,
        groupUniqArrayIf(read_call_id, in_window AND NOT paged AND read_complete AND named_call) AS alone_calls,
        countIf(in_window AND NOT paged AND read_complete AND same_resource) > 0 AS alone_same_resource
    FROM pairs
    GROUP BY tenant, session, trace_id, mutation_span_id, unit
),
judged AS
(
    SELECT
        tenant, session, trace_id, mutation_span_id,
        any(mutation_tool_call_id) AS mutation_tool_call_id, any(mutation_time) AS mutation_time,
        any(tool_name) AS tool_name, any(agent_name) AS agent_name, any(scope_resource) AS scope_resource,
        any(mutation_basis) AS mutation_basis, any(target_count) AS target_count,
        any(guard_decision) AS guard_decision,
        any(evidence_snapshots) AS evidence_snapshots, any(evidence_call_ids) AS evidence_call_ids,
        sum(alone_incomplete) + countIf(of_pages AND concerning AND NOT complete) AS incomplete_reads,
        arrayDistinct(arrayConcat(arrayFlatten(groupArray(alone_snapshots)),
                                  arrayFlatten(groupArrayIf(named_snapshots, of_pages AND complete)))) AS complete_snapshots,
        arrayDistinct(arrayConcat(arrayFlatten(groupArray(alone_calls)),
                                  arrayFlatten(groupArrayIf(named_calls, of_pages AND complete)))) AS complete_call_ids,
        max(alone_same_resource) OR countIf(of_pages AND complete AND covers_resource) > 0 AS complete_same_resource
    FROM units
    GROUP BY tenant, session, trace_id, mutation_span_id
),
scored AS
(
    SELECT
        *,
        (length(evidence_snapshots) + length(evidence_call_ids)) > 0 AS declared,
        arrayConcat(arrayFilter(s -> NOT has(complete_snapshots, s), evidence_snapshots),
                    arrayFilter(c -> NOT has(complete_call_ids, c), evidence_call_ids)) AS missing_evidence,
        toUInt8(1
            + 3
            + 2 * (guard_decision IN ('allowed', ''))
            + multiIf(ifNull(target_count, 0) >= 100, 2, ifNull(target_count, 0) >= 10, 1, 0)) AS score
    FROM judged
)
SELECT
    'absence_mutation_without_complete_evidence' AS kind,
    tenant, session, trace_id, mutation_span_id, mutation_tool_call_id, mutation_time, tool_name, agent_name,
    scope_resource, mutation_basis, target_count, guard_decision, evidence_snapshots, evidence_call_ids,
    missing_evidence, score,
    multiIf(score >= 7, 'critical', score >= 3, 'warning', 'info') AS severity
FROM scored
WHERE incomplete_reads = 0
  AND if(declared, length(missing_evidence) > 0, NOT complete_same_resource)
ORDER BY tenant, mutation_time, mutation_span_id
