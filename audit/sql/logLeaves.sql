-- Every leaf of one (tenant, log) in index order: verify folds them into the roots its checkpoints signed.
SELECT toString(idx) AS idx_text, hash, entry_hash
FROM {db:Identifier}.audit_log_nodes
WHERE tenant = {tenant:String} AND log = {log:String} AND level = 0
ORDER BY idx
