-- Tools whose calls arrived from another emitter (tooltrail.emitter, set by the ingest) with no effect: no tool policy
-- names them, so their mutations are never judged. Per tenant, tool and emitter, since {since}: `tooltrail status`.
SELECT
    tenant,
    tool_name AS tool,
    attributes['tooltrail.emitter'] AS emitter,
    count() AS spans,
    argMax(span_id, ingested_at) AS example_span_id,
    formatDateTime(max(ingested_at), '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC') AS last_seen
FROM {db:Identifier}.tool_calls
WHERE ingested_at >= {since:DateTime64(3, 'UTC')}
  AND ({tenant:String} = '' OR tenant = {tenant:String})
  AND effect = ''
  AND attributes['tooltrail.emitter'] != ''
GROUP BY tenant, tool, emitter
ORDER BY tenant, spans DESC, tool
