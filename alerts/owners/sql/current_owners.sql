-- Current owners (the owners view); with a tenant, that tenant's and the every-tenant ('') ones.
SELECT tenant, subject_kind, subject, source, owner, team, assigned_at, assigned_by, reason
FROM {db:Identifier}.owners
WHERE {tenant:String} = '' OR tenant IN ({tenant:String}, '')
ORDER BY subject_kind, subject, source, tenant
