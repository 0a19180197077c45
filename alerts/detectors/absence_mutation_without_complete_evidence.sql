-- Detector: absence_mutation_without_complete_evidence
--
-- Rule: a mutation M whose tooltrail.mutation.basis is `absence` (it acts on what a read did NOT return) is a
-- finding when its evidence is not complete and mutation_after_incomplete_read does not already report it
-- (no incomplete read of its resource or evidence in the window: one bad mutation, one page). Its evidence is
--   * what it declares (evidence_snapshots, evidence_call_ids): complete only when every snapshot / call id was
--     read completely by some read of the same session in the window;
--   * or, when it declares nothing, the reads of the same tooltrail.scope.resource in the window: there must be
--     at least one, all complete.
-- A read here is a cursor traversal (the pages a session read cursor after cursor, linked by
-- tooltrail.traversal.id: one read, complete as a whole or not at all; fragments/traversal_complete.sql), or a
-- single read no attribute links, as before semconv 1.5.0.
-- So: an absence mutation with no read behind it at all, or naming evidence that was never (completely) read.
--
-- Severity: the same score as mutation_after_incomplete_read (alerts/README.md); basis is always absence here.
-- missing_evidence lists the declared snapshots / call ids that no complete read matched.
--
-- How: the absence mutations of the range and the reads of the window before them, fed to the judgement that this
-- detector shares with its incremental twin (fragments/absence_judgement.sql, composed in by the loader).
--
-- Parameters: database (Identifier), tenant ('' = every tenant), since/until (M's start time range),
-- window_seconds (how far before M a read still counts).
WITH
    absence_mutations AS
    (
        SELECT
            tenant, if(session_id = '', trace_id, session_id) AS session, trace_id, span_id, tool_call_id,
            start_time, ifNull(sequence, 0) AS seq, tool_name, agent_name, scope_resource, mutation_basis,
            mutation_target_count, guard_decision, evidence_snapshots, evidence_call_ids
        FROM {database:Identifier}.tool_calls
        WHERE effect = 'mutation' AND mutation_basis = 'absence'
          AND ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} AND start_time < {until:DateTime64(9)}
    ),
    reads AS
    (
        SELECT
            tenant, if(session_id = '', trace_id, session_id) AS session, span_id, tool_call_id, start_time,
            ifNull(sequence, 0) AS seq, scope_resource, scope_snapshot, result_complete, result_reasons,
            {{include:traversal_columns}}
        FROM {database:Identifier}.tool_calls
        WHERE effect = 'read'
          AND ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
          AND start_time < {until:DateTime64(9)}
    ),
    {{include:absence_judgement}}
