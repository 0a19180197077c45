-- The tool_call_warnings rows of one (tenant, hour) in canonical column order (the columns placeholder: see toolCallsOfHour.sql).
SELECT {{columns}}
FROM {db:Identifier}.tool_call_warnings
WHERE tenant = {tenant:String}
  AND time >= toDateTime({hour_s:UInt32}, 'UTC') AND time < toDateTime({hour_s:UInt32} + 3600, 'UTC')
