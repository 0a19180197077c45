-- Detector: mutation_after_incomplete_read
--
-- Rule: a mutation M is a finding when, in the same session and at most {window_seconds} before M, a read R
--   * covered the same tooltrail.scope.resource as M, or is named by M as evidence (R's scope.snapshot is in M's
--     tooltrail.mutation.evidence_snapshots, or R's gen_ai.tool.call.id, or the id of R's cursor traversal, in
--     tooltrail.mutation.evidence_call_ids),
--   * and R was not complete: tooltrail.result.complete false, or absent (unknown completeness counts as
--     incomplete), unless R is a page of a cursor traversal that was complete before M,
-- unless M's declared evidence is complete: M names at least one snapshot or call id, and every one of them was
-- read completely by some read of that window, or is a page, the snapshot or the id of a traversal complete before M
-- (so an incomplete first page superseded by a complete read that M names is not a finding).
-- A cursor traversal (semconv 1.5.0: pages linked by tooltrail.traversal.id / .page, alerts/README.md) is one read:
-- complete when its first page, every position after it, one snapshot where declared, no break (an expired cursor,
-- a break an emitter recorded) and a complete last page are among the pages of the window before M
-- (fragments/traversal_complete.sql). A read that no attribute links is a traversal of one page, as before 1.5.0.
-- The session is gen_ai.conversation.id (the trace id when a span has none); "before" orders by start time, then
-- by tooltrail.session.sequence.
--
-- One row per mutation. Severity score (documented in alerts/README.md):
--   1 + 3 if M's basis is `absence` + 2 if one of the reads was incomplete AND empty (item_count = 0)
--     + 2 if the guard allowed M or no guard ran + 1 if target_count >= 10, + 2 if >= 100
--   score >= 7: critical, 3..6: warning, <= 2: info
--
-- How (for speed over tens of millions of rows): the detector reads three small tables that materialized views fill
-- at insert time (migrations 0014 and 0041), never tool_calls itself, in three stages:
--   1. narrow candidates: mutations joined with the reads of their session that cannot stand alone as complete
--      (incomplete reads and traversal pages) on UInt64 session_key, numbers and the resource / evidence columns
--      only; grouped by traversal to keep those that concern M and were not complete before it (no string keys,
--      none of the finding's wide columns);
--   2. narrow evidence: each candidate's declared evidence (one row per snapshot / call id) is looked up among the
--      complete reads by item_key, a 64-bit hash of (tenant, session, kind, value) (a false match needs a hash
--      collision within the window, ~1e-16), and among the items of the traversals complete before it; candidates
--      whose evidence is complete drop out;
--   3. wide: only the mutations left (the findings) are fetched with their columns and joined again with the pages
--      of the traversals that concern them, this time also comparing tenant and session exactly, to build the
--      finding rows.
-- Stages 1-2 key a mutation by (session_key, cityHash64(span_id)) and skip the exact session test: that can only
-- keep extra candidates (on a session_key collision), which stage 3's exact test removes; merging two mutations'
-- evidence would need both 64-bit keys to collide. The score and the row order are fragments/mutation_finding_rows.sql,
-- shared with the incremental detector.
--
-- Parameters: database (Identifier), tenant ('' = every tenant), since/until (M's start time range),
-- window_seconds (how far before M a read still counts).
WITH
    -- The mutations of the range, on narrow columns.
    narrow_mutations AS
    (
        SELECT session_key, cityHash64(span_id) AS span_key, start_time, seq, scope_resource, evidence_snapshots,
            evidence_call_ids,
            arrayMap(item -> if(item.2 = '', 0, cityHash64(tenant, session, item.1, item.2)),
                arrayConcat(arrayMap(s -> ('snapshot', s), evidence_snapshots),
                            arrayMap(c -> ('call', c), evidence_call_ids))) AS item_keys
        FROM {database:Identifier}.detector_mutations
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} AND start_time < {until:DateTime64(9)}
    ),
    -- 1a. Mutations with at least one concerning incomplete read of their session before them that no emitter linked
    --     to a traversal (judged alone, as before semconv 1.5.0: nearly all reads).
    narrow_alone AS
    (
        SELECT m.session_key AS session_key, m.span_key AS span_key, any(m.start_time) AS mutation_time,
            any(m.seq) AS mutation_seq, any(m.item_keys) AS item_keys
        FROM narrow_mutations AS m
        INNER JOIN
        (
            SELECT session_key, start_time, seq, scope_resource, scope_snapshot, tool_call_id
            FROM {database:Identifier}.detector_incomplete_reads
            WHERE ({tenant:String} = '' OR tenant = {tenant:String})
              AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
              AND start_time < {until:DateTime64(9)}
              AND traversal_hash = 0
        ) AS r ON r.session_key = m.session_key
        WHERE (r.start_time, r.seq) < (m.start_time, m.seq)
          AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32})
          AND
          {{include:concerns_mutation}}
        GROUP BY m.session_key, m.span_key
    ),
    -- 1b. The pages of linked traversals before each mutation (few), one unit per traversal: whether one of its pages
    --     concerns the mutation, whether it was complete before it, what it stands for.
    paged_pages AS
    (
        SELECT session_key, start_time, seq, scope_resource, scope_snapshot, tool_call_id, result_reasons,
            result_complete, traversal_key, traversal_hash, traversal_page, traversal_break, traversal_first,
            traversal_items
        FROM {database:Identifier}.detector_incomplete_reads
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
          AND start_time < {until:DateTime64(9)}
          AND traversal_hash != 0
    ),
    narrow_traversals AS
    (
        SELECT session_key, span_key, unit, any(mutation_time) AS mutation_time, any(mutation_seq) AS mutation_seq,
            any(item_keys) AS item_keys, max(concerns) AS concerns,
            {{include:traversal_complete}} AS complete,
            groupUniqArrayArray(t_items) AS stands_for
        FROM
        (
            SELECT m.session_key AS session_key, m.span_key AS span_key, m.start_time AS mutation_time,
                m.seq AS mutation_seq, m.item_keys AS item_keys, r.traversal_hash AS unit,
                (
                    {{include:concerns_mutation}}
                    OR has(m.evidence_call_ids, r.traversal_key)) AS concerns,
                true AS t_in,
                {{include:page_columns}},
                r.traversal_items AS t_items
            FROM
            (
                SELECT * FROM narrow_mutations WHERE session_key IN (SELECT session_key FROM paged_pages)
            ) AS m
            INNER JOIN paged_pages AS r ON r.session_key = m.session_key
            WHERE (r.start_time, r.seq) < (m.start_time, m.seq)
              AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32})
        )
        GROUP BY session_key, span_key, unit
    ),
    -- Mutations with a concerning read alone, or a concerning traversal that was not complete before them: the
    -- traversals they are concerned by, and the evidence items the complete ones stand for.
    narrow_candidates AS
    (
        SELECT session_key, span_key, any(c_time) AS mutation_time, any(c_seq) AS mutation_seq,
            any(c_item_keys) AS item_keys, arrayDistinct(arrayFlatten(groupArray(c_concerning))) AS concerning,
            arrayDistinct(arrayFlatten(groupArray(c_items))) AS traversal_items, max(c_alone) AS alone
        FROM
        (
            SELECT session_key, span_key, mutation_time AS c_time, mutation_seq AS c_seq, item_keys AS c_item_keys,
                CAST([], 'Array(UInt64)') AS c_concerning, CAST([], 'Array(UInt64)') AS c_items, true AS c_alone
            FROM narrow_alone
            UNION ALL
            SELECT session_key, span_key, any(mutation_time) AS c_time, any(mutation_seq) AS c_seq,
                any(item_keys) AS c_item_keys, groupArrayIf(unit, concerns AND NOT complete) AS c_concerning,
                arrayDistinct(arrayFlatten(groupArrayIf(stands_for, complete))) AS c_items, false AS c_alone
            FROM narrow_traversals
            GROUP BY session_key, span_key
        )
        GROUP BY session_key, span_key
        HAVING alone OR length(concerning) > 0
    ),
    -- 2. Their declared evidence, one row each (a mutation that declares none keeps one row, item_count 0).
    narrow_items AS
    (
        SELECT session_key, span_key, mutation_time, mutation_seq, concerning, traversal_items,
            length(item_keys) AS item_count, item_key, item_index
        FROM narrow_candidates
        LEFT ARRAY JOIN item_keys AS item_key, arrayEnumerate(item_keys) AS item_index
    ),
    -- Candidates whose declared evidence was not all read completely in the window, by a read or a traversal.
    -- RIGHT JOIN: the small item set is the hash table, the complete evidence streams past it once.
    narrow_findings AS
    (
        SELECT c.session_key AS session_key, c.span_key AS span_key, any(c.concerning) AS concerning
        FROM
        (
            SELECT item_key, start_time, seq FROM {database:Identifier}.detector_complete_evidence
            WHERE ({tenant:String} = '' OR tenant = {tenant:String})
              AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
              AND start_time < {until:DateTime64(9)}
        ) AS r
        RIGHT JOIN narrow_items AS c ON r.item_key = c.item_key
        GROUP BY c.session_key, c.span_key
        HAVING any(c.item_count) = 0 OR uniqExactIf(c.item_index,
                has(c.traversal_items, c.item_key)
                OR ((r.start_time, r.seq) < (c.mutation_time, c.mutation_seq)
                    AND r.start_time >= c.mutation_time - toIntervalSecond({window_seconds:UInt32})))
            < any(c.item_count)
    ),
    -- 3. The findings' wide columns, with the exact session test, and the pages of the traversals that concern them.
    findings AS
    (
        SELECT
            m.tenant AS tenant, m.session AS session, m.trace_id AS trace_id, m.span_id AS mutation_span_id,
            any(m.tool_call_id) AS mutation_tool_call_id, any(m.start_time) AS mutation_time,
            any(m.tool_name) AS tool_name, any(m.agent_name) AS agent_name,
            any(m.scope_resource) AS scope_resource, any(m.mutation_basis) AS mutation_basis,
            any(m.mutation_target_count) AS target_count, any(m.guard_decision) AS guard_decision,
            any(m.evidence_snapshots) AS evidence_snapshots, any(m.evidence_call_ids) AS evidence_call_ids,
            {{include:incomplete_read_columns}}
        FROM
        (
            SELECT tenant, session, session_key, trace_id, span_id, tool_call_id, start_time, seq, tool_name,
                scope_resource, scope_snapshot, complete_reported, result_reasons, result_item_count,
                result_complete, traversal_hash, traversal_break
            FROM {database:Identifier}.detector_incomplete_reads
            WHERE ({tenant:String} = '' OR tenant = {tenant:String})
              AND start_time >= {since:DateTime64(9)} - toIntervalSecond({window_seconds:UInt32})
              AND start_time < {until:DateTime64(9)}
        ) AS r
        INNER JOIN
        (
            SELECT m.tenant AS tenant, m.session AS session, m.session_key AS session_key, m.trace_id AS trace_id,
                m.span_id AS span_id, m.tool_call_id AS tool_call_id, m.start_time AS start_time, m.seq AS seq,
                m.tool_name AS tool_name, m.agent_name AS agent_name, m.scope_resource AS scope_resource,
                m.mutation_basis AS mutation_basis, m.mutation_target_count AS mutation_target_count,
                m.guard_decision AS guard_decision, m.evidence_snapshots AS evidence_snapshots,
                m.evidence_call_ids AS evidence_call_ids
            FROM
            (
                SELECT tenant, session, session_key, trace_id, span_id, tool_call_id, start_time, seq, tool_name,
                    agent_name, scope_resource, mutation_basis, mutation_target_count, guard_decision,
                    evidence_snapshots, evidence_call_ids
                FROM {database:Identifier}.detector_mutations
                WHERE ({tenant:String} = '' OR tenant = {tenant:String})
                  AND start_time >= {since:DateTime64(9)} AND start_time < {until:DateTime64(9)}
                  AND (session_key, cityHash64(span_id)) IN (SELECT session_key, span_key FROM narrow_findings)
            ) AS m
        ) AS m ON r.session_key = m.session_key
        WHERE r.tenant = m.tenant AND r.session = m.session
          AND (r.start_time, r.seq) < (m.start_time, m.seq)
          AND r.start_time >= m.start_time - toIntervalSecond({window_seconds:UInt32})
          AND if(r.traversal_hash != 0,
                 (m.session_key, cityHash64(m.span_id), r.traversal_hash)
                     IN (SELECT session_key, span_key, unit FROM narrow_traversals WHERE concerns AND NOT complete),
                 {{include:concerns_mutation}})
        GROUP BY m.tenant, m.session, m.trace_id, m.span_id
    ),
    {{include:mutation_finding_rows}}
