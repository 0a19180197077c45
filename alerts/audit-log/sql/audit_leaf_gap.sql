-- Rule: a Merkle log with a hole. The writer appends leaves 0, 1, 2, ... and never removes one (audit_log_tiles has
-- no TTL): each batch stores the leaves' hashes (level-0 tiles) and their data (entries rows) in one insert, so
-- fewer leaves with data than the tree's size (its last leaf hash + 1) means entries rows were deleted from the
-- table. Reads each log by primary key (tenant, log, kind).
SELECT
    tenant,
    log,
    toString(tree_size) AS size,
    toString(held) AS leaves
FROM
(
    SELECT tenant, log, max(idx * 256 + width) AS tree_size
    FROM {database:Identifier}.audit_log_tiles
    WHERE kind = 'tile' AND level = 0 AND ({tenant:String} = '' OR tenant = {tenant:String})
    GROUP BY tenant, log
) AS tiles
LEFT JOIN
(
    SELECT tenant, log, sum(width) AS held
    FROM
    (
        SELECT DISTINCT tenant, log, idx, width
        FROM {database:Identifier}.audit_log_tiles
        WHERE kind = 'entries' AND ({tenant:String} = '' OR tenant = {tenant:String})
    )
    GROUP BY tenant, log
) AS entries USING (tenant, log)
WHERE held < tree_size
ORDER BY tenant, log
