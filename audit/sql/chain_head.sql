-- The newest record of one (tenant, chain): where the next record links to. A primary-key range read.
-- The text of seq gets its own name: aliased as `seq`, ORDER BY would sort the text (9 after 36).
SELECT toString(seq) AS seq_text, digest_hash
FROM {db:Identifier}.row_digests
WHERE tenant = {tenant:String} AND chain = {chain:String}
ORDER BY seq DESC
LIMIT 1
