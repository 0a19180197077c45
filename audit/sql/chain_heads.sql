-- The newest record of every chain: what to keep outside the database (the chain cannot show a cut-off tail).
SELECT
    tenant,
    chain,
    toString(max(seq)) AS head_seq,
    argMax(digest_hash, seq) AS head_hash,
    toString(toUnixTimestamp64Milli(argMax(recorded_at, seq))) AS head_recorded_ms
FROM {db:Identifier}.row_digests
WHERE ({tenant:String} = '' OR tenant = {tenant:String})
GROUP BY tenant, chain
ORDER BY tenant, chain
