-- Detector: incremental_absence_mutation_without_complete_evidence
--
-- Rule: the rule of absence_mutation_without_complete_evidence.sql (stated there in full), applied to the
-- mutations that an incremental evaluator run re-judges: those of the sessions that received a read or a mutation
-- in [{arrived_since}, {arrived_until}) (arrival, not event time), starting at or after the earliest start time
-- those arrivals brought (arrived_sessions.sql).
--
-- How: the absence mutations and the reads (incomplete and complete) of the arrived sessions only, each looked up
-- by its table's primary-key prefix (tenant, session: fragments/arrived_rows.sql, shared with
-- incremental_mutation_after_incomplete_read); then the range detector's own judgement
-- (fragments/absence_judgement.sql). Same columns and row order; bench/detector-evaluation.ts compares both.
--
-- Parameters: database (Identifier), tenant ('' = every tenant), arrived_since / arrived_until (DateTime64(3)),
-- window_seconds (how far before M a read still counts).
WITH
    {{include:arrived}},
    {{include:arrived_rows}},
    absence_mutations AS
    (
        SELECT * FROM arrived_mutations WHERE mutation_basis = 'absence'
    ),
    reads AS
    (
        SELECT tenant, session, span_id, tool_call_id, start_time, seq, scope_resource, scope_snapshot,
            false AS result_complete
        FROM arrived_incomplete_reads
        UNION ALL
        SELECT tenant, session, span_id, tool_call_id, start_time, seq, scope_resource, scope_snapshot,
            true AS result_complete
        FROM arrived_complete_reads
    ),
    {{include:absence_judgement}}
