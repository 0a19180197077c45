-- The mutation_after_incomplete_read of migration 0014: one pass over the insert-time tables, carrying the finding's
-- wide columns through both joins. Kept only so bench/detector-evaluation.ts can time it (and compare its findings)
-- beside the current three-stage detector in the same run.
-- Detector: mutation_after_incomplete_read
--
-- Rule: a mutation M is a finding when, in the same session and at most {window_seconds} before M, a read R
--   * covered the same tooltrail.scope.resource as M, or is named by M as evidence (R's scope.snapshot is in M's
--     tooltrail.mutation.evidence_snapshots, or R's gen_ai.tool.call.id in tooltrail.mutation.evidence_call_ids),
--   * and was not complete: tooltrail.result.complete false, or absent (unknown completeness counts as incomplete),
-- unless M's declared evidence is complete: M names at least one snapshot or call id, and every one of them was
-- read completely by some read of that window (so an incomplete first page superseded by a complete read that M
-- names is not a finding).
-- The session is gen_ai.conversation.id (the trace id when a span has none); "before" orders by start time, then
-- by tooltrail.session.sequence.
--
-- One row per mutation. Severity score (documented in alerts/README.md):
--   1 + 3 if M's basis is `absence` + 2 if one of the reads was incomplete AND empty (item_count = 0)
--     + 2 if the guard allowed M or no guard ran + 1 if target_count >= 10, + 2 if >= 100
--   score >= 7: critical, 3..6: warning, <= 2: info
--
-- How (for speed over tens of millions of rows): the detector reads three small tables that materialized views fill
-- at insert time (migration 0014), never tool_calls itself: mutations are joined with the INCOMPLETE reads of their
-- session (on session_key, then tenant and session compared exactly) to find candidates; then the evidence each
-- candidate declares (one row per snapshot / call id) is looked up among the complete reads by item_key, a 64-bit
-- hash of (tenant, session, kind, value): a false match needs a hash collision within the window (~1e-16).
-- Both joins keep the small side as the hash table (RIGHT JOIN for the second).
--
-- Parameters: database (Identifier), tenant ('' = every tenant), since/until (M's start time range),
-- window_seconds (how far before M a read still counts).
WITH
    mutations AS
    (
        SELECT tenant, session, session_key, trace_id, span_id, tool_call_id, start_time, seq, tool_name, agent_name,
            scope_resource, mutation_basis, mutation_target_count, guard_decision, evidence_snapshots, evidence_call_ids
        FROM {database:Identifier}.detector_mutations
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} AND start_time < {until:DateTime64(9)}
    ),
    incomplete_reads AS
    (
        SELECT tenant, session, session_key, trace_id, span_id, tool_call_id, start_time, seq, tool_name,
            scope_resource, scope_snapshot, complete_reported, result_reasons, result_item_count
        FROM {database:Identifier}.detector_incomplete_reads
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
          AND start_time < {until:DateTime64(9)}
    ),
    candidates AS
    (
        SELECT
            m.tenant AS tenant, m.session AS session, m.trace_id AS trace_id, m.span_id AS mutation_span_id,
            any(m.tool_call_id) AS mutation_tool_call_id, any(m.start_time) AS mutation_time,
            any(m.seq) AS mutation_seq, any(m.tool_name) AS tool_name, any(m.agent_name) AS agent_name,
            any(m.scope_resource) AS scope_resource, any(m.mutation_basis) AS mutation_basis,
            any(m.mutation_target_count) AS target_count, any(m.guard_decision) AS guard_decision,
            any(m.evidence_snapshots) AS evidence_snapshots, any(m.evidence_call_ids) AS evidence_call_ids,
            groupArray(r.span_id) AS read_span_ids,
            groupArray(r.trace_id) AS read_trace_ids,
            groupArray(r.tool_name) AS read_tool_names,
            arrayDistinct(arrayFlatten(groupArray(
                if(r.complete_reported, r.result_reasons, arrayConcat(['COMPLETENESS_UNKNOWN'], r.result_reasons)))))
                AS reasons,
            max(ifNull(r.result_item_count = 0, false)) AS incomplete_empty
        FROM mutations AS m
        INNER JOIN incomplete_reads AS r ON r.session_key = m.session_key
        WHERE r.tenant = m.tenant AND r.session = m.session
          AND (r.start_time, r.seq) < (m.start_time, m.seq)
          AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32})
          AND ((r.scope_resource != '' AND r.scope_resource = m.scope_resource)
            OR (r.scope_snapshot != '' AND has(m.evidence_snapshots, r.scope_snapshot))
            OR (r.tool_call_id != '' AND has(m.evidence_call_ids, r.tool_call_id)))
        GROUP BY m.tenant, m.session, m.trace_id, m.span_id
    ),
    candidate_items AS
    (
        SELECT *, item.1 AS item_kind, item.2 AS item_value,
            if(item.2 = '', 0, cityHash64(tenant, session, item.1, item.2)) AS item_key
        FROM candidates
        LEFT ARRAY JOIN arrayConcat(arrayMap(s -> ('snapshot', s), evidence_snapshots),
                                    arrayMap(c -> ('call', c), evidence_call_ids)) AS item
    ),
    judged AS
    (
        SELECT
            c.tenant AS tenant, c.session AS session, c.trace_id AS trace_id,
            c.mutation_span_id AS mutation_span_id, any(c.mutation_tool_call_id) AS mutation_tool_call_id,
            any(c.mutation_time) AS mutation_time, any(c.tool_name) AS tool_name, any(c.agent_name) AS agent_name,
            any(c.scope_resource) AS scope_resource, any(c.mutation_basis) AS mutation_basis,
            any(c.target_count) AS target_count, any(c.guard_decision) AS guard_decision,
            any(c.evidence_snapshots) AS evidence_snapshots, any(c.evidence_call_ids) AS evidence_call_ids,
            any(c.read_span_ids) AS read_span_ids, any(c.read_trace_ids) AS read_trace_ids,
            any(c.read_tool_names) AS read_tool_names, any(c.reasons) AS reasons,
            any(c.incomplete_empty) AS incomplete_empty,
            groupUniqArrayIf(c.item_value, c.item_kind = 'snapshot'
                AND (r.start_time, r.seq) < (c.mutation_time, c.mutation_seq)
                AND r.start_time >= c.mutation_time - toIntervalSecond({window_seconds:UInt32})) AS complete_snapshots,
            groupUniqArrayIf(c.item_value, c.item_kind = 'call'
                AND (r.start_time, r.seq) < (c.mutation_time, c.mutation_seq)
                AND r.start_time >= c.mutation_time - toIntervalSecond({window_seconds:UInt32})) AS complete_call_ids
        FROM
        (
            SELECT item_key, start_time, seq FROM {database:Identifier}.detector_complete_evidence
            WHERE ({tenant:String} = '' OR tenant = {tenant:String})
              AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
              AND start_time < {until:DateTime64(9)}
        ) AS r
        RIGHT JOIN candidate_items AS c ON r.item_key = c.item_key
        GROUP BY c.tenant, c.session, c.trace_id, c.mutation_span_id
    ),
    scored AS
    (
        SELECT
            *,
            (length(evidence_snapshots) + length(evidence_call_ids)) > 0
                AND hasAll(complete_snapshots, evidence_snapshots)
                AND hasAll(complete_call_ids, evidence_call_ids) AS evidence_complete,
            toUInt8(1
                + 3 * (mutation_basis = 'absence')
                + 2 * incomplete_empty
                + 2 * (guard_decision IN ('allowed', ''))
                + multiIf(ifNull(target_count, 0) >= 100, 2, ifNull(target_count, 0) >= 10, 1, 0)) AS score
        FROM judged
    )
SELECT
    'mutation_after_incomplete_read' AS kind,
    tenant, session, trace_id, mutation_span_id, mutation_tool_call_id, mutation_time, tool_name, agent_name,
    scope_resource, mutation_basis, target_count, guard_decision, evidence_snapshots, evidence_call_ids,
    read_span_ids, read_trace_ids, read_tool_names, reasons, incomplete_empty, score,
    multiIf(score >= 7, 'critical', score >= 3, 'warning', 'info') AS severity
FROM scored
WHERE NOT evidence_complete
ORDER BY tenant, mutation_time, mutation_span_id
