-- The leaves that stand for given rows of one tenant (by table and span id), in every log: the entries rows holding
-- any of the ids (bloom filter on row_ids), each id at its position.
SELECT
    log,
    toString(idx + pos - 1) AS idx_text,
    row_table,
    row_ids[pos] AS row_id,
    lower(hex(substring(hashes, (pos - 1) * 32 + 1, 32))) AS entry_hash,
    canonical_version
FROM {db:Identifier}.audit_log_tiles
ARRAY JOIN arrayEnumerate(row_ids) AS pos
WHERE tenant = {tenant:String} AND kind = 'entries' AND row_table = {table:String}
  AND hasAny(row_ids, {ids:Array(String)}) AND row_ids[pos] IN {ids:Array(String)}
ORDER BY log, idx + pos
LIMIT 1 BY log, idx + pos
