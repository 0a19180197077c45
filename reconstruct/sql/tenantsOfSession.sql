-- The tenants that hold a session: a session id is unique only within a tenant. {tenant} = '' means any tenant.
SELECT DISTINCT tenant
FROM {db:Identifier}.tool_calls
WHERE session_id = {session:String}
  AND ({tenant:String} = '' OR tenant = {tenant:String})
ORDER BY tenant
LIMIT 100
