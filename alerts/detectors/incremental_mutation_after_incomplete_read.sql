-- Detector: incremental_mutation_after_incomplete_read
--
-- Rule: the rule of mutation_after_incomplete_read.sql (stated there in full), applied to the mutations that an
-- incremental evaluator run re-judges: those of the sessions that received a read or a mutation in
-- [{arrived_since}, {arrived_until}) (arrival, not event time: a late span is judged when it arrives), starting at
-- or after the earliest start time those arrivals brought (arrived_sessions.sql). A late complete read therefore
-- clears its session's finding, and a late incomplete read raises one.
--
-- How: every table is read by its primary-key prefix (tenant, session) for the arrived sessions only
-- (detector_mutations, detector_incomplete_reads, detector_complete_reads: fragments/arrived_rows.sql, shared with
-- incremental_absence_mutation_without_complete_evidence), so the cost follows what arrived, not the size of the
-- history. Those sets are small, so the rule is applied with exact string keys: the pages grouped per mutation and
-- traversal (fragments/traversal_complete.sql; reads judged alone as one unit), the concerning ones kept, their
-- evidence checked. The rows are scored
-- and ordered by the range detector's own tail (fragments/mutation_finding_rows.sql);
-- bench/detector-evaluation.ts compares both on the same data (a conformance check against the range detector).
--
-- Parameters: database (Identifier), tenant ('' = every tenant), arrived_since / arrived_until (DateTime64(3)),
-- window_seconds (how far before M a read still counts).
WITH
    {{include:arrived}},
    {{include:arrived_rows}},
    -- Mutations and the pages of their session before them in the window.
    pages AS
    (
        SELECT m.tenant AS tenant, m.session AS session, m.trace_id AS trace_id, m.span_id AS mutation_span_id,
            r.traversal_hash != 0 AS paged, if(paged, r.traversal_key, '') AS unit, r.tool_call_id AS read_call_id,
            (
                {{include:concerns_mutation}}
                OR (paged AND has(m.evidence_call_ids, r.traversal_key))) AS concerns,
            paged AS t_in,
            {{include:page_columns}}
        FROM arrived_incomplete_reads AS r
        INNER JOIN arrived_mutations AS m ON r.tenant = m.tenant AND r.session = m.session
        WHERE (r.start_time, r.seq) < (m.start_time, m.seq)
          AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32})
    ),
    -- Per mutation, its reads as units: each linked traversal (whether one concerns it, whether it was complete
    -- before it, what it stands for), and unit '' for the reads judged alone (all incomplete here).
    units AS
    (
        SELECT tenant, session, trace_id, mutation_span_id, unit, any(paged) AS of_pages, max(concerns) AS concerns,
            {{include:traversal_complete}} AS complete,
            arrayConcat(arrayMap(c -> ('call', c), arrayConcat(groupUniqArrayIf(read_call_id, read_call_id != ''),
                                                               [unit])),
                        arrayMap(s -> ('snapshot', s), groupUniqArrayIf(t_snapshot, t_snapshot != '')))
                AS stands_for
        FROM pages
        GROUP BY tenant, session, trace_id, mutation_span_id, unit
    ),
    -- Mutations with a concerning read alone, or a concerning traversal that was not complete before them.
    concerned AS
    (
        SELECT tenant, session, trace_id, mutation_span_id,
            groupArrayIf(unit, of_pages AND concerns AND NOT complete) AS concerning,
            countIf(NOT of_pages AND concerns) > 0 AS alone_concerning,
            arrayDistinct(arrayFlatten(groupArrayIf(stands_for, of_pages AND complete))) AS traversal_items
        FROM units
        GROUP BY tenant, session, trace_id, mutation_span_id
        HAVING alone_concerning OR length(concerning) > 0
    ),
    -- Those mutations with the pages of the traversals that concern them.
    candidates AS
    (
        SELECT
            m.tenant AS tenant, m.session AS session, m.trace_id AS trace_id, m.span_id AS mutation_span_id,
            any(m.tool_call_id) AS mutation_tool_call_id, any(m.start_time) AS mutation_time,
            any(m.seq) AS mutation_seq, any(m.tool_name) AS tool_name, any(m.agent_name) AS agent_name,
            any(m.scope_resource) AS scope_resource, any(m.mutation_basis) AS mutation_basis,
            any(m.mutation_target_count) AS target_count, any(m.guard_decision) AS guard_decision,
            any(m.evidence_snapshots) AS evidence_snapshots, any(m.evidence_call_ids) AS evidence_call_ids,
            arrayConcat(arrayMap(s -> ('snapshot', s), evidence_snapshots),
                        arrayMap(c -> ('call', c), evidence_call_ids)) AS declared,
            any(x.traversal_items) AS traversal_items,
            {{include:incomplete_read_columns}}
        FROM arrived_incomplete_reads AS r
        INNER JOIN arrived_mutations AS m ON r.tenant = m.tenant AND r.session = m.session
        INNER JOIN concerned AS x
            ON x.tenant = m.tenant AND x.session = m.session AND x.trace_id = m.trace_id
           AND x.mutation_span_id = m.span_id
        WHERE (r.start_time, r.seq) < (m.start_time, m.seq)
          AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32})
          AND if(r.traversal_hash != 0, has(x.concerning, r.traversal_key),
                 {{include:concerns_mutation}})
        GROUP BY m.tenant, m.session, m.trace_id, m.span_id
    ),
    -- Each candidate's declared evidence, one row per snapshot / call id.
    items AS
    (
        SELECT tenant, session, trace_id, mutation_span_id, mutation_time, mutation_seq, item.1 AS item_kind,
            item.2 AS item_value, item_index, has(traversal_items, item) AS by_traversal
        FROM candidates
        ARRAY JOIN declared AS item, arrayEnumerate(declared) AS item_index
    ),
    -- How many of each candidate's declared items a complete read or traversal of the window stands for.
    cleared AS
    (
        SELECT tenant, session, trace_id, mutation_span_id, uniqExact(item_index) AS matched
        FROM
        (
            SELECT tenant, session, trace_id, mutation_span_id, item_index FROM items WHERE by_traversal
            UNION ALL
            SELECT i.tenant AS tenant, i.session AS session, i.trace_id AS trace_id,
                i.mutation_span_id AS mutation_span_id, i.item_index AS item_index
            FROM items AS i
            INNER JOIN arrived_complete_reads AS e ON e.tenant = i.tenant AND e.session = i.session
            WHERE i.item_value != ''
              AND ((i.item_kind = 'snapshot' AND e.scope_snapshot = i.item_value)
                OR (i.item_kind = 'call' AND e.tool_call_id = i.item_value))
              AND (e.start_time, e.seq) < (i.mutation_time, i.mutation_seq)
              AND e.start_time >= i.mutation_time - toIntervalSecond({window_seconds:UInt32})
        )
        GROUP BY tenant, session, trace_id, mutation_span_id
    ),
    -- The candidates whose declared evidence was not all read completely: the findings.
    findings AS
    (
        SELECT
            c.tenant AS tenant, c.session AS session, c.trace_id AS trace_id, c.mutation_span_id AS mutation_span_id,
            c.mutation_tool_call_id AS mutation_tool_call_id, c.mutation_time AS mutation_time,
            c.tool_name AS tool_name, c.agent_name AS agent_name, c.scope_resource AS scope_resource,
            c.mutation_basis AS mutation_basis, c.target_count AS target_count, c.guard_decision AS guard_decision,
            c.evidence_snapshots AS evidence_snapshots, c.evidence_call_ids AS evidence_call_ids,
            c.read_span_ids AS read_span_ids, c.read_trace_ids AS read_trace_ids,
            c.read_tool_names AS read_tool_names, c.reasons AS reasons, c.incomplete_empty AS incomplete_empty
        FROM candidates AS c
        LEFT JOIN cleared AS x
            ON x.tenant = c.tenant AND x.session = c.session AND x.trace_id = c.trace_id
           AND x.mutation_span_id = c.mutation_span_id
        WHERE length(c.declared) = 0 OR x.matched < length(c.declared)
    ),
    {{include:mutation_finding_rows}}
