-- Whether a tenant holds any tool call at all: `findings` for a tenant with no data says so (a mistyped tenant,
-- or spans stored under the no-auth tenant `default`), instead of a bare "no findings".
SELECT count() > 0 AS has_data
FROM (SELECT 1 FROM {db:Identifier}.tool_calls WHERE tenant = {tenant:String} LIMIT 1)
