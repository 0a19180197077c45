-- The current lifecycle state of one warning (tenant, code, source), from the warning_states view.
SELECT tenant, code, source, state, due_at, state_changed_at, changed_by, reason
FROM {db:Identifier}.warning_states
WHERE tenant = {tenant:String} AND code = {code:String} AND source = {source:String}
