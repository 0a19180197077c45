-- When each probe session's finding was first seen (the evaluator run that judged it).
SELECT session_id AS session, toString(min(first_seen)) AS at
FROM {db:Identifier}.findings FINAL
WHERE tenant = {tenant:String}
GROUP BY session_id
