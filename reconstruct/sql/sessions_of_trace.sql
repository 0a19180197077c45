-- The (tenant, session) pairs whose tool calls ran in a trace; session_id '' = calls that named no session.
SELECT tenant, session_id
FROM {db:Identifier}.tool_calls
WHERE trace_id = {trace:String}
  AND ({tenant:String} = '' OR tenant = {tenant:String})
GROUP BY tenant, session_id
ORDER BY tenant, session_id
LIMIT 100
