-- The highest session number of the batches added in the last {since} (sessions are named `sess-<number>`).
SELECT max(toUInt64(substring(session_id, 7))) AS s
FROM {db:Identifier}.tool_calls
WHERE start_time > {since:DateTime64(3)}
