-- Every (tenant, log) that has tiles or checkpoints; '' = every tenant.
SELECT tenant, log FROM
(
    SELECT DISTINCT tenant, log FROM {db:Identifier}.audit_log_tiles
    WHERE ({tenant:String} = '' OR tenant = {tenant:String}) AND kind = 'tile'
    UNION DISTINCT
    SELECT DISTINCT tenant, log FROM {db:Identifier}.audit_checkpoints
    WHERE ({tenant:String} = '' OR tenant = {tenant:String})
)
ORDER BY tenant, log
