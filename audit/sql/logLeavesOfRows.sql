-- The leaves that stand for given rows of one tenant (by table and span id), in every log.
SELECT log, toString(idx) AS idx_text, hash, row_table, row_id, entry_hash
FROM {db:Identifier}.audit_log_nodes
WHERE tenant = {tenant:String} AND level = 0 AND row_table = {table:String} AND row_id IN {ids:Array(String)}
ORDER BY log, idx
