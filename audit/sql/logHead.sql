-- The size of one (tenant, log) tree: its last leaf + 1 (0 when it has none). A primary-key range read.
SELECT toString(max(idx) + 1) AS size_text, uniqExact(idx) AS leaves
FROM {db:Identifier}.audit_log_nodes
WHERE tenant = {tenant:String} AND log = {log:String} AND level = 0
