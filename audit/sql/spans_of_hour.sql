-- The spans rows of one (tenant, hour) in canonical column order (the columns placeholder: see toolCallsOfHour.sql).
SELECT {{columns}}
FROM {db:Identifier}.spans
WHERE Tenant = {tenant:String}
  AND Timestamp >= toDateTime({hour_s:UInt32}, 'UTC') AND Timestamp < toDateTime({hour_s:UInt32} + 3600, 'UTC')
