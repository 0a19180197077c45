-- The tool calls of one session in time order (a prefix range of the table's ORDER BY key). {trace} = '' for the
-- whole session; set, with {session} = '', for the calls of a trace that named no session. A span delivered twice
-- is shown once (LIMIT 1 BY). {limit} is one more than the caller shows, to tell "exactly N" from "more than N".
SELECT
    {{include:stored_call_columns}}
FROM {db:Identifier}.tool_calls
WHERE tenant = {tenant:String}
  AND session_id = {session:String}
  AND ({trace:String} = '' OR trace_id = {trace:String})
ORDER BY start_time, span_id
LIMIT 1 BY trace_id, span_id
LIMIT {limit:UInt32}
