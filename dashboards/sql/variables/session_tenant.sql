-- Every tenant with tool calls (the reconstruction is not limited to the time picker).
SELECT DISTINCT tenant
FROM tool_calls
ORDER BY tenant
