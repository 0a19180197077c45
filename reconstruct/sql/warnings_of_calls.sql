-- Warning details (code, source, message) of the given tool spans; the time bounds let ClickHouse prune partitions.
SELECT span_id, code, source, message
FROM {db:Identifier}.tool_call_warnings
WHERE tenant = {tenant:String}
  AND span_id IN {spans:Array(String)}
  AND time >= fromUnixTimestamp64Nano({from_ns:Int64})
  AND time <= fromUnixTimestamp64Nano({to_ns:Int64})
ORDER BY time, span_id, code, source
LIMIT 1 BY span_id, time, code, source, message
LIMIT 100000
