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
            result_complete, result_reasons, traversal_key, traversal_hash, traversal_page, traversal_break,
            traversal_first
        FROM arrived_incomplete_reads
        UNION ALL
        -- A read that stands alone as complete is a traversal of its own, of one page.
        SELECT tenant, session, span_id, tool_call_id, start_time, seq, scope_resource, scope_snapshot,
            true AS result_complete, CAST([], 'Array(LowCardinality(String))') AS result_reasons,
            if(tool_call_id = '', span_id, tool_call_id) AS traversal_key, toUInt64(0) AS traversal_hash,
            toUInt64(0) AS traversal_page,
            CAST('', 'LowCardinality(String)') AS traversal_break, true AS traversal_first
        FROM arrived_complete_reads
    ),
    {{include:absence_judgement}}
