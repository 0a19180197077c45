-- When each probe session's mutation was stored (the first of its rows).
SELECT session_id AS session, toString(min(ingested_at)) AS at
FROM {db:Identifier}.tool_calls
WHERE tenant = {tenant:String} AND effect = 'mutation' AND session_id LIKE 'sess-%'
GROUP BY session_id
