-- The digest records of one (tenant, hour), with their row lists.
SELECT
    chain,
    toString(seq) AS seq_text,
    batch_id,
    backfill,
    canonical_version,
    row_count,
    row_tables,
    row_ids,
    row_hashes,
    rows_hash
FROM {db:Identifier}.row_digests
WHERE tenant = {tenant:String} AND hour = toDateTime({hour_s:UInt32}, 'UTC')
ORDER BY chain, seq
