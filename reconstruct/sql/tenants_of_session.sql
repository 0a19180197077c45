-- The tenants that hold a session: a session id is unique only within a tenant. {tenant} = '' means any tenant.
-- A session is also named by its trace id when its calls carried no gen_ai.conversation.id (as the detectors name
-- it): `by_trace` says which of the two a tenant's calls are.
SELECT tenant, session_id = '' AS by_trace
FROM {db:Identifier}.tool_calls
WHERE (session_id = {session:String} OR (session_id = '' AND trace_id = {session:String}))
  AND ({tenant:String} = '' OR tenant = {tenant:String})
GROUP BY tenant, by_trace
ORDER BY tenant, by_trace
LIMIT 100
