-- Every level-0 tile (the leaf hashes) of one (tenant, log), the widest copy of each, in index order: verify
-- checks each leaf hash against its entry.
SELECT toString(idx) AS idx_text, max(width) AS held, hex(argMax(hashes, width)) AS hashes_hex
FROM {db:Identifier}.audit_log_tiles
WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile' AND level = 0
GROUP BY idx
ORDER BY idx
