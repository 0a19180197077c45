-- The deletion requests of a tenant ('' = every tenant) whose range overlaps [from, to): verify honours them.
SELECT
    tenant,
    deletion_id,
    toString(toUnixTimestamp(range_from)) AS from_s,
    toString(toUnixTimestamp(range_to)) AS to_s,
    requested_by,
    reason,
    toString(toUnixTimestamp64Milli(recorded_at)) AS recorded_ms,
    key_id,
    note
FROM {db:Identifier}.audit_deletions
WHERE ({tenant:String} = '' OR tenant = {tenant:String})
  AND range_from < toDateTime({to_s:UInt32}, 'UTC') AND range_to > toDateTime({from_s:UInt32}, 'UTC')
ORDER BY tenant, range_from, deletion_id
