-- Fragment (the CTE `scored` and the final SELECT; needs `findings`, one row per mutation found): the rows of
-- mutation_after_incomplete_read, scored as alerts/README.md says, in the order both its detectors return.
scored AS
(
    SELECT
        *,
        toUInt8(1
            + 3 * (mutation_basis = 'absence')
            + 2 * incomplete_empty
            + 2 * (guard_decision IN ('allowed', ''))
            + multiIf(ifNull(target_count, 0) >= 100, 2, ifNull(target_count, 0) >= 10, 1, 0)) AS score
    FROM findings
)
SELECT
    'mutation_after_incomplete_read' AS kind,
    tenant, session, trace_id, mutation_span_id, mutation_tool_call_id, mutation_time, tool_name, agent_name,
    scope_resource, mutation_basis, target_count, guard_decision, evidence_snapshots, evidence_call_ids,
    read_span_ids, read_trace_ids, read_tool_names, reasons, incomplete_empty, score,
    multiIf(score >= 7, 'critical', score >= 3, 'warning', 'info') AS severity
FROM scored
ORDER BY tenant, mutation_time, mutation_span_id
