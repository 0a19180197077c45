-- The tool_calls rows of one tenant with these span ids, in the canonical column order ({{columns}}, canonical.ts),
-- read as JSONCompactEachRow arrays: what a proof bundle's canonical texts are written from.
SELECT {{columns}}
FROM {db:Identifier}.tool_calls
WHERE tenant = {tenant:String} AND span_id IN {ids:Array(String)}
