-- A deletion request (audit/deletions.ts): the tenant's tool_calls rows of [from, to), recorded in audit_deletions first.
ALTER TABLE {db:Identifier}.tool_calls
DELETE WHERE tenant = {tenant:String}
  AND start_time >= toDateTime({from_s:UInt32}, 'UTC') AND start_time < toDateTime({to_s:UInt32}, 'UTC')
