-- The days a generated history already holds (a kept database is completed, never regenerated).
SELECT DISTINCT toString(toDate(start_time)) AS day
FROM {db:Identifier}.tool_calls
WHERE start_time < {end:DateTime64(3)}
