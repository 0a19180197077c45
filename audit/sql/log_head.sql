-- One (tenant, log) tree: its size (from its level-0 tiles, the leaf hashes) and how many of those leaves have their
-- data (entries rows; fewer: some were deleted). Two primary-key range reads.
SELECT
    toString((
        SELECT max(idx * 256 + width) FROM {db:Identifier}.audit_log_tiles
        WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'tile' AND level = 0
    )) AS size_text,
    toString((
        SELECT sum(width) FROM
        (
            SELECT DISTINCT idx, width FROM {db:Identifier}.audit_log_tiles
            WHERE tenant = {tenant:String} AND log = {log:String} AND kind = 'entries'
        )
    )) AS leaves_text
