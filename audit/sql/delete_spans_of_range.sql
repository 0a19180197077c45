-- A deletion request (audit/deletions.ts): the tenant's spans of [from, to), recorded in audit_deletions first.
ALTER TABLE {db:Identifier}.spans
DELETE WHERE Tenant = {tenant:String}
  AND Timestamp >= toDateTime({from_s:UInt32}, 'UTC') AND Timestamp < toDateTime({to_s:UInt32}, 'UTC')
