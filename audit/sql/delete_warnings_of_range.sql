-- A deletion request (audit/deletions.ts): the tenant's warning rows of [from, to), recorded in audit_deletions first.
ALTER TABLE {db:Identifier}.tool_call_warnings
DELETE WHERE tenant = {tenant:String}
  AND time >= toDateTime({from_s:UInt32}, 'UTC') AND time < toDateTime({to_s:UInt32}, 'UTC')
