-- The widest stored copy of tiles of one (tenant, log) tree: the superset of the levels and indices asked is read
-- by primary key, the exact pairs are picked by the caller. Hashes as hex (32 bytes each).
SELECT level, toString(idx) AS idx_text, max(width) AS held, hex(argMax(hashes, width)) AS hashes_hex
FROM {db:Identifier}.audit_log_tiles
WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile'
  AND level IN {levels:Array(UInt8)} AND idx IN {indices:Array(UInt64)}
GROUP BY level, idx
