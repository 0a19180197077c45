-- The stored checkpoints of one (tenant, log), by size; `max_size` bounds them (0 = every one).
SELECT tenant, log, toString(tree_size) AS size_text, root_hash, key_name, key_id, note,
       toString(toUnixTimestamp64Milli(published_at)) AS published_ms_text
FROM {db:Identifier}.audit_checkpoints
WHERE tenant = {tenant:String} AND log = {log:String}
  AND ({max_size:UInt64} = 0 OR tree_size <= {max_size:UInt64})
ORDER BY tree_size, published_at
