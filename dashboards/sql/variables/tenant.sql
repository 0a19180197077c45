-- Tenants seen in the time range (the tenant stamped by the collector from the credential).
SELECT DISTINCT tenant
FROM tool_calls
WHERE $__timeFilter(start_time)
ORDER BY tenant
