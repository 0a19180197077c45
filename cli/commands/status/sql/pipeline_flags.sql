-- Tool calls the pipeline kept flagged (the sender broke the span contract), per tenant, code and attribute, that
-- arrived since {since}: `tooltrail status`. ingested_at, not the span's time: what the pipeline saw this hour.
SELECT
    tenant,
    code AS reason,
    source AS attribute,
    uniqExact(span_id) AS spans,
    argMax(span_id, ingested_at) AS example_span_id,
    argMax(message, ingested_at) AS message,
    formatDateTime(max(ingested_at), '%Y-%m-%dT%H:%i:%S.%fZ', 'UTC') AS last_seen
FROM {db:Identifier}.tool_call_warnings
WHERE code IN {codes:Array(String)}
  AND ingested_at >= {since:DateTime64(3, 'UTC')}
  AND ({tenant:String} = '' OR tenant = {tenant:String})
GROUP BY tenant, code, source
ORDER BY tenant, spans DESC, reason, attribute
