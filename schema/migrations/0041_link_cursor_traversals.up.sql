-- Cursor traversals (semconv 1.5.0; alerts/README.md, "Cursor traversals"): the detectors judge the pages a session
-- read cursor after cursor as one read. A page names its traversal in tool_calls.attributes:
-- `tooltrail.traversal.id` (the first page's call id), `.page` (its position from 1), `.break` (why it can no longer
-- be complete). detector_incomplete_reads now holds every read that cannot stand alone as complete evidence: an
-- incomplete read, and any page that is not the first of its traversal or carries a break, complete or not, with
-- the traversal columns the detectors group pages by. The complete-evidence tables keep the reads that can stand
-- alone: complete, and the first page of their own traversal, without a break.
-- Rows stored before: the new columns' DEFAULTs describe them as what every read was then, a traversal of its own
-- (one page, at position 1); no emitter sent the traversal attributes before 1.5.0, so nothing is backfilled.
-- The views are replaced (DROP + CREATE): run before the ingest starts, as 0014 (a batch stored in between would not
-- reach the detector tables).
ALTER TABLE {{database}}.detector_incomplete_reads {{on_cluster}}
    ADD COLUMN IF NOT EXISTS traversal_key String DEFAULT if(tool_call_id = '', span_id, tool_call_id)
        COMMENT 'its traversal: tooltrail.traversal.id, else the read''s own call id (its span id without one)',
    ADD COLUMN IF NOT EXISTS traversal_hash UInt64 DEFAULT 0
        COMMENT 'cityHash64(traversal_key) for a page of a traversal an emitter linked (id or break); 0: judged alone',
    ADD COLUMN IF NOT EXISTS traversal_page UInt64 DEFAULT 0 COMMENT 'tooltrail.traversal.page, 0 when absent',
    ADD COLUMN IF NOT EXISTS traversal_break LowCardinality(String) DEFAULT '' COMMENT 'tooltrail.traversal.break',
    ADD COLUMN IF NOT EXISTS traversal_first Bool DEFAULT true
        COMMENT 'the first page of its own traversal: no break, position <= 1, traversal id absent or its call id',
    ADD COLUMN IF NOT EXISTS result_complete Bool DEFAULT false COMMENT 'the page itself said complete',
    ADD COLUMN IF NOT EXISTS traversal_items Array(UInt64)
        DEFAULT arrayFilter(k -> k != 0, [if(tool_call_id = '', 0, cityHash64(tenant, session, 'call', tool_call_id)),
                                          if(scope_snapshot = '', 0, cityHash64(tenant, session, 'snapshot', scope_snapshot))])
        COMMENT 'the evidence items (item_key of detector_complete_evidence) the page stands for once its traversal is complete';

DROP VIEW IF EXISTS {{database}}.detector_incomplete_reads_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_incomplete_reads_mv {{on_cluster}}
TO {{database}}.detector_incomplete_reads AS
SELECT
    tenant, session, cityHash64(tenant, session) AS session_key, start_time, seq, trace_id, span_id, tool_call_id,
    tool_name, scope_resource, scope_snapshot, complete_reported, result_reasons, result_item_count, traversal_key,
    if(traversal_id != '' OR traversal_break != '', cityHash64(traversal_key), 0) AS traversal_hash, traversal_page,
    traversal_break, traversal_first,
    result_complete,
    arrayFilter(k -> k != 0, [if(tool_call_id = '', 0, cityHash64(tenant, session, 'call', tool_call_id)),
                              cityHash64(tenant, session, 'call', traversal_key),
                              if(scope_snapshot = '', 0, cityHash64(tenant, session, 'snapshot', scope_snapshot))])
        AS traversal_items
FROM
(
    SELECT
        tenant, if(session_id = '', trace_id, session_id) AS session, start_time, ifNull(sequence, 0) AS seq,
        trace_id, span_id, tool_call_id, tool_name, scope_resource, scope_snapshot, complete_reported,
        result_reasons, result_item_count, result_complete,
        attributes['tooltrail.traversal.id'] AS traversal_id,
        if(traversal_id = '', if(tool_call_id = '', span_id, tool_call_id), traversal_id) AS traversal_key,
        toUInt64OrZero(attributes['tooltrail.traversal.page']) AS traversal_page,
        attributes['tooltrail.traversal.break'] AS traversal_break,
        traversal_break = '' AND traversal_page <= 1 AND traversal_id IN ('', tool_call_id) AS traversal_first
    FROM {{database}}.tool_calls
    WHERE effect = 'read'
)
WHERE NOT (result_complete AND traversal_first);

DROP VIEW IF EXISTS {{database}}.detector_complete_evidence_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_complete_evidence_mv {{on_cluster}}
TO {{database}}.detector_complete_evidence AS
SELECT
    tenant, cityHash64(tenant, if(session_id = '', trace_id, session_id), item.1, item.2) AS item_key, start_time,
    ifNull(sequence, 0) AS seq
FROM {{database}}.tool_calls
ARRAY JOIN arrayFilter(i -> i.2 != '', [('snapshot', scope_snapshot), ('call', tool_call_id)]) AS item
WHERE effect = 'read' AND result_complete AND attributes['tooltrail.traversal.break'] = ''
  AND toUInt64OrZero(attributes['tooltrail.traversal.page']) <= 1
  AND attributes['tooltrail.traversal.id'] IN ('', tool_call_id);

DROP VIEW IF EXISTS {{database}}.detector_complete_reads_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_complete_reads_mv {{on_cluster}}
TO {{database}}.detector_complete_reads AS
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, start_time, ifNull(sequence, 0) AS seq, span_id,
    tool_call_id, scope_resource, scope_snapshot
FROM {{database}}.tool_calls
WHERE effect = 'read' AND result_complete AND attributes['tooltrail.traversal.break'] = ''
  AND toUInt64OrZero(attributes['tooltrail.traversal.page']) <= 1
  AND attributes['tooltrail.traversal.id'] IN ('', tool_call_id);
