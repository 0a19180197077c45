-- The tool_calls rows of one (tenant, hour) in canonical column order. The columns placeholder is filled from the constant
-- column list of audit/canonical.ts (code, never input); values are bound.
SELECT {{columns}}
FROM {db:Identifier}.tool_calls
WHERE tenant = {tenant:String}
  AND start_time >= toDateTime({hour_s:UInt32}, 'UTC') AND start_time < toDateTime({hour_s:UInt32} + 3600, 'UTC')
