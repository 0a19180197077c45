-- Fragment (the CTEs `arrived_mutations`, `arrived_incomplete_reads`, `arrived_complete_reads`; needs `arrived`):
-- what the incremental detectors judge, each table read by its primary-key prefix (tenant, session) for the
-- arrived sessions only, so a run's cost follows what arrived, not the size of the history. The mutations are
-- those from each session's from_time on; the reads those that can still count for them (the window before).
-- arrived_incomplete_reads holds every read that cannot stand alone as complete evidence (the pages of cursor
-- traversals included, with their traversal columns); arrived_complete_reads the reads that can.
arrived_mutations AS
(
    SELECT m.tenant AS tenant, m.session AS session, m.trace_id AS trace_id, m.span_id AS span_id,
        m.tool_call_id AS tool_call_id, m.start_time AS start_time, m.seq AS seq, m.tool_name AS tool_name,
        m.agent_name AS agent_name, m.scope_resource AS scope_resource, m.mutation_basis AS mutation_basis,
        m.mutation_target_count AS mutation_target_count, m.guard_decision AS guard_decision,
        m.evidence_snapshots AS evidence_snapshots, m.evidence_call_ids AS evidence_call_ids
    FROM
    (
        SELECT tenant, session, trace_id, span_id, tool_call_id, start_time, seq, tool_name, agent_name,
            scope_resource, mutation_basis, mutation_target_count, guard_decision, evidence_snapshots,
            evidence_call_ids
        FROM {database:Identifier}.detector_mutations
        -- The time bound changes no row (every mutation kept starts at or after its session's from_time); it lets
        -- ClickHouse skip the daily partitions of the history instead of probing each one's index.
        WHERE (tenant, session) IN (SELECT tenant, session FROM arrived)
          AND start_time >= (SELECT min(from_time) FROM arrived)
    ) AS m
    INNER JOIN arrived AS a ON a.tenant = m.tenant AND a.session = m.session
    WHERE m.start_time >= a.from_time
),
arrived_incomplete_reads AS
(
    SELECT tenant, session, trace_id, span_id, tool_call_id, start_time, seq, tool_name, scope_resource,
        scope_snapshot, complete_reported, result_reasons, result_item_count, result_complete, traversal_key,
        traversal_hash, traversal_page, traversal_break, traversal_first
    FROM {database:Identifier}.detector_incomplete_reads
    WHERE (tenant, session) IN (SELECT tenant, session FROM arrived)
      AND start_time >= (SELECT min(from_time) FROM arrived) - toIntervalSecond({window_seconds:UInt32})
),
arrived_complete_reads AS
(
    SELECT tenant, session, span_id, tool_call_id, start_time, seq, scope_resource, scope_snapshot
    FROM {database:Identifier}.detector_complete_reads
    WHERE (tenant, session) IN (SELECT tenant, session FROM arrived)
      AND start_time >= (SELECT min(from_time) FROM arrived) - toIntervalSecond({window_seconds:UInt32})
)
