-- Back to 0018's views (every complete read is complete evidence, every incomplete read its own read) and columns.
DROP VIEW IF EXISTS {{database}}.detector_complete_reads_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_complete_reads_mv {{on_cluster}}
TO {{database}}.detector_complete_reads AS
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, start_time, ifNull(sequence, 0) AS seq, span_id,
    tool_call_id, scope_resource, scope_snapshot
FROM {{database}}.tool_calls
WHERE effect = 'read' AND result_complete;

DROP VIEW IF EXISTS {{database}}.detector_complete_evidence_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_complete_evidence_mv {{on_cluster}}
TO {{database}}.detector_complete_evidence AS
SELECT
    tenant, cityHash64(tenant, if(session_id = '', trace_id, session_id), item.1, item.2) AS item_key, start_time,
    ifNull(sequence, 0) AS seq
FROM {{database}}.tool_calls
ARRAY JOIN arrayFilter(i -> i.2 != '', [('snapshot', scope_snapshot), ('call', tool_call_id)]) AS item
WHERE effect = 'read' AND result_complete;

DROP VIEW IF EXISTS {{database}}.detector_incomplete_reads_mv {{on_cluster}};
CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_incomplete_reads_mv {{on_cluster}}
TO {{database}}.detector_incomplete_reads AS
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, cityHash64(tenant, session) AS session_key,
    start_time, ifNull(sequence, 0) AS seq, trace_id, span_id, tool_call_id, tool_name, scope_resource,
    scope_snapshot, complete_reported, result_reasons, result_item_count
FROM {{database}}.tool_calls
WHERE effect = 'read' AND NOT result_complete;

ALTER TABLE {{database}}.detector_incomplete_reads {{on_cluster}}
    DROP COLUMN IF EXISTS traversal_items,
    DROP COLUMN IF EXISTS result_complete,
    DROP COLUMN IF EXISTS traversal_first,
    DROP COLUMN IF EXISTS traversal_break,
    DROP COLUMN IF EXISTS traversal_page,
    DROP COLUMN IF EXISTS traversal_hash,
    DROP COLUMN IF EXISTS traversal_key;
