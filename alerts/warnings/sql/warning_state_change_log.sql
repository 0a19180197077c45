-- The lifecycle change log, oldest first: every warning's with {any}, else the one warning's (tenant, code, source).
SELECT tenant, code, source, from_state, state, due_at, changed_by, changed_at, reason
FROM {db:Identifier}.warning_state_changes
WHERE {any:Bool} OR (tenant = {tenant:String} AND code = {code:String} AND source = {source:String})
ORDER BY changed_at, change_seq, change_id
