-- Detector: absence_mutation_without_complete_evidence
--
-- Rule: a mutation M whose tooltrail.mutation.basis is `absence` (it acts on what a read did NOT return) is a
-- finding when its evidence is not complete and mutation_after_incomplete_read does not already report it
-- (no incomplete read of its resource or evidence in the window: one bad mutation, one page). Its evidence is
--   * what it declares (evidence_snapshots, evidence_call_ids): complete only when every snapshot / call id was
--     read completely by some read of the same session in the window;
--   * or, when it declares nothing, the reads of the same tooltrail.scope.resource in the window: there must be
--     at least one, all complete.
-- So: an absence mutation with no read behind it at all, or naming evidence that was never (completely) read.
--
-- Severity: the same score as mutation_after_incomplete_read (alerts/README.md); basis is always absence here.
-- missing_evidence lists the declared snapshots / call ids that no complete read matched.
--
-- Parameters: database (Identifier), tenant ('' = every tenant), since/until (M's start time range),
-- window_seconds (how far before M a read still counts).
WITH
    mutations AS
    (
        SELECT
            tenant, if(session_id = '', trace_id, session_id) AS session, trace_id, span_id, tool_call_id,
            start_time, ifNull(sequence, 0) AS seq, tool_name, agent_name, scope_resource, mutation_basis,
            mutation_target_count, guard_decision, evidence_snapshots, evidence_call_ids
        FROM {database:Identifier}.tool_calls
        WHERE effect = 'mutation'
          AND ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} AND start_time < {until:DateTime64(9)}
    ),
    absence_mutations AS
    (
        SELECT * FROM mutations WHERE mutation_basis = 'absence'
    ),
    reads AS
    (
        SELECT
            tenant, if(session_id = '', trace_id, session_id) AS session, trace_id, span_id, tool_call_id,
            start_time, ifNull(sequence, 0) AS seq, tool_name, scope_resource, scope_snapshot, result_complete,
            complete_reported, result_reasons, result_item_count
        FROM {database:Identifier}.tool_calls
        WHERE effect = 'read'
          AND ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
          AND start_time < {until:DateTime64(9)}
    ),
    -- Each absence mutation with the reads of its window that concern it (same resource, or named as evidence).
    related AS
    (
        SELECT
            m.tenant AS tenant, m.trace_id AS trace_id, m.span_id AS mutation_span_id,
            groupArrayIf(r.span_id, NOT r.result_complete) AS read_span_ids,
            groupUniqArrayIf(r.scope_snapshot, r.result_complete AND has(m.evidence_snapshots, r.scope_snapshot))
                AS complete_snapshots,
            groupUniqArrayIf(r.tool_call_id, r.result_complete AND has(m.evidence_call_ids, r.tool_call_id))
                AS complete_call_ids,
            maxIf(r.result_complete, r.scope_resource = m.scope_resource AND m.scope_resource != '')
                AS complete_same_resource
        FROM absence_mutations AS m
        INNER JOIN reads AS r ON r.tenant = m.tenant AND r.session = m.session
        WHERE (r.start_time, r.seq) < (m.start_time, m.seq)
          AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32})
          AND ((r.scope_resource != '' AND r.scope_resource = m.scope_resource)
            OR (r.scope_snapshot != '' AND has(m.evidence_snapshots, r.scope_snapshot))
            OR (r.tool_call_id != '' AND has(m.evidence_call_ids, r.tool_call_id)))
        GROUP BY m.tenant, m.session, m.trace_id, m.span_id
    ),
    judged AS
    (
        SELECT
            m.tenant AS tenant, m.session AS session, m.trace_id AS trace_id, m.span_id AS mutation_span_id,
            m.tool_call_id AS mutation_tool_call_id, m.start_time AS mutation_time, m.tool_name AS tool_name,
            m.agent_name AS agent_name, m.scope_resource AS scope_resource, m.mutation_basis AS mutation_basis,
            m.mutation_target_count AS target_count, m.guard_decision AS guard_decision,
            m.evidence_snapshots AS evidence_snapshots, m.evidence_call_ids AS evidence_call_ids,
            (length(m.evidence_snapshots) + length(m.evidence_call_ids)) > 0 AS declared,
            -- LEFT JOIN: a mutation with no related read gets empty arrays here.
            rel.read_span_ids AS incomplete_read_span_ids,
            arrayConcat(arrayFilter(s -> NOT has(rel.complete_snapshots, s), m.evidence_snapshots),
                        arrayFilter(c -> NOT has(rel.complete_call_ids, c), m.evidence_call_ids)) AS missing_evidence,
            rel.complete_same_resource AS complete_same_resource,
            toUInt8(1
                + 3
                + 2 * (m.guard_decision IN ('allowed', ''))
                + multiIf(ifNull(m.mutation_target_count, 0) >= 100, 2,
                          ifNull(m.mutation_target_count, 0) >= 10, 1, 0)) AS score
        FROM absence_mutations AS m
        LEFT JOIN related AS rel
            ON rel.tenant = m.tenant AND rel.trace_id = m.trace_id AND rel.mutation_span_id = m.span_id
    )
SELECT
    'absence_mutation_without_complete_evidence' AS kind,
    tenant, session, trace_id, mutation_span_id, mutation_tool_call_id, mutation_time, tool_name, agent_name,
    scope_resource, mutation_basis, target_count, guard_decision, evidence_snapshots, evidence_call_ids,
    missing_evidence, score,
    multiIf(score >= 7, 'critical', score >= 3, 'warning', 'info') AS severity
FROM judged
WHERE length(incomplete_read_span_ids) = 0
  AND if(declared, length(missing_evidence) > 0, NOT complete_same_resource)
ORDER BY tenant, mutation_time, mutation_span_id
