-- Every (tenant, hour) in [from, to) that holds stored rows, digest records or logged rows: the hours verify checks.
-- Aliases differ from column names so that no alias can shadow a column in a WHERE clause.
SELECT t AS tenant, toString(h) AS hour_s
FROM
(
    SELECT tenant AS t, toUnixTimestamp(toStartOfHour(start_time)) AS h
    FROM {db:Identifier}.tool_calls
    WHERE start_time >= toDateTime({from_s:UInt32}, 'UTC') AND start_time < toDateTime({to_s:UInt32}, 'UTC')
      AND ({tenant:String} = '' OR tenant = {tenant:String})
    UNION ALL
    SELECT tenant AS t, toUnixTimestamp(toStartOfHour(time)) AS h
    FROM {db:Identifier}.tool_call_warnings
    WHERE time >= toDateTime({from_s:UInt32}, 'UTC') AND time < toDateTime({to_s:UInt32}, 'UTC')
      AND ({tenant:String} = '' OR tenant = {tenant:String})
    UNION ALL
    SELECT Tenant AS t, toUnixTimestamp(toStartOfHour(Timestamp)) AS h
    FROM {db:Identifier}.spans
    WHERE Timestamp >= toDateTime({from_s:UInt32}, 'UTC') AND Timestamp < toDateTime({to_s:UInt32}, 'UTC')
      AND ({tenant:String} = '' OR Tenant = {tenant:String})
    UNION ALL
    SELECT tenant AS t, toUnixTimestamp(hour) AS h
    FROM {db:Identifier}.row_digests
    WHERE hour >= toDateTime({from_s:UInt32}, 'UTC') AND hour < toDateTime({to_s:UInt32}, 'UTC')
      AND ({tenant:String} = '' OR tenant = {tenant:String})
    UNION ALL
    SELECT tenant AS t, toUnixTimestamp(row_hour) AS h
    FROM {db:Identifier}.audit_log_tiles
    WHERE kind = 'entries' AND row_hour >= toDateTime({from_s:UInt32}, 'UTC') AND row_hour < toDateTime({to_s:UInt32}, 'UTC')
      AND ({tenant:String} = '' OR tenant = {tenant:String})
)
GROUP BY t, h
ORDER BY t, h
