-- Every entries row of one (tenant, log) in leaf order, one per first leaf: verify folds the entry hashes into the
-- roots its checkpoints signed.
SELECT toString(idx) AS idx_text, width, hex(hashes) AS entries_hex
FROM {db:Identifier}.audit_log_tiles
WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries'
ORDER BY idx
LIMIT 1 BY idx
