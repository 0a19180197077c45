-- The newest record of one (tenant, chain): where the next record links to. A primary-key range read.
SELECT toString(seq) AS seq, digest_hash
FROM {db:Identifier}.row_digests
WHERE tenant = {tenant:String} AND chain = {chain:String}
ORDER BY seq DESC
LIMIT 1
