-- Every tenant with tool calls (the reconstruction is not limited to the time picker). All: find the session in
-- whichever tenant has it (a link that only knows the session id, e.g. from an alert, lands on All).
SELECT DISTINCT tenant
FROM tool_calls
ORDER BY tenant
