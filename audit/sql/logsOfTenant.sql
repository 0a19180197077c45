-- Every (tenant, log) that has leaves or checkpoints; '' = every tenant.
SELECT tenant, log FROM
(
    SELECT DISTINCT tenant, log FROM {db:Identifier}.audit_log_nodes
    WHERE ({tenant:String} = '' OR tenant = {tenant:String}) AND level = 0
    UNION DISTINCT
    SELECT DISTINCT tenant, log FROM {db:Identifier}.audit_checkpoints
    WHERE ({tenant:String} = '' OR tenant = {tenant:String})
)
ORDER BY tenant, log
