-- The tool calls of one session in time order (a prefix range of the table's ORDER BY key). {trace} = '' for the
-- whole session; set, with {session} = '', for the calls of a trace that named no session. A span delivered twice
-- is shown once (LIMIT 1 BY). {limit} is one more than the caller shows, to tell "exactly N" from "more than N".
SELECT
    tenant,
    session_id,
    toString(sequence) AS sequence,
    toString(toUnixTimestamp64Nano(start_time)) AS start_ns,
    toString(toUnixTimestamp64Nano(end_time)) AS end_ns,
    trace_id,
    span_id,
    parent_span_id,
    tool_call_id,
    tool_name,
    agent_name,
    agent_id,
    service_name,
    effect,
    span_status_code,
    span_status_message,
    result_status,
    result_complete,
    complete_reported,
    result_reasons,
    toString(result_item_count) AS result_item_count,
    result_continuation,
    scope_resource,
    scope_visibility,
    scope_snapshot,
    warnings,
    mutation_basis,
    toString(mutation_target_count) AS mutation_target_count,
    evidence_snapshots,
    evidence_call_ids,
    guard_decision
FROM {db:Identifier}.tool_calls
WHERE tenant = {tenant:String}
  AND session_id = {session:String}
  AND ({trace:String} = '' OR trace_id = {trace:String})
ORDER BY start_time, span_id
LIMIT 1 BY trace_id, span_id
LIMIT {limit:UInt32}
