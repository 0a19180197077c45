-- Sessions with a tool call stored in the last 10 seconds (the latency probe's poll).
SELECT DISTINCT session_id FROM {db:Identifier}.tool_calls WHERE ingested_at >= now64(3) - INTERVAL 10 SECOND
