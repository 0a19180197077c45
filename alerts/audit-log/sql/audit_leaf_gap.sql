-- Rule: a Merkle log whose leaf indices have a hole. The writer appends leaves 0, 1, 2, ... and never removes one
-- (audit_log_nodes has no TTL), so fewer distinct leaf indices than the last index + 1 means leaves were deleted
-- from the table. Reads the leaf level of each log by primary key (tenant, log, level).
SELECT
    tenant,
    log,
    toString(max(idx) + 1) AS size,
    toString(uniqExact(idx)) AS leaves
FROM {database:Identifier}.audit_log_nodes
WHERE level = 0 AND ({tenant:String} = '' OR tenant = {tenant:String})
GROUP BY tenant, log
HAVING uniqExact(idx) < max(idx) + 1
ORDER BY tenant, log
