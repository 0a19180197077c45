-- Node hashes of one (tenant, log) tree by (level, index): the superset of the levels and indices asked is read
-- by primary key, the exact pairs are picked by the caller.
SELECT level, toString(idx) AS idx_text, hash
FROM {db:Identifier}.audit_log_nodes
WHERE tenant = {tenant:String} AND log = {log:String}
  AND level IN {levels:Array(UInt8)} AND idx IN {indices:Array(UInt64)}
