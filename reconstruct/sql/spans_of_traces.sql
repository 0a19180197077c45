-- Every stored span of the given traces (context spans and tool spans of any session), to find parents that
-- never arrived.
SELECT TraceId AS trace_id, SpanId AS span_id, ParentSpanId AS parent_span_id, SpanName AS name
FROM {db:Identifier}.spans
WHERE Tenant = {tenant:String} AND TraceId IN {traces:Array(String)}
UNION ALL
SELECT trace_id, span_id, parent_span_id, span_name AS name
FROM {db:Identifier}.tool_calls
WHERE tenant = {tenant:String} AND trace_id IN {traces:Array(String)}
LIMIT 100000
