-- Every tool call of the session in order: what the agent read, what it changed, and on what evidence.
-- A session is gen_ai.conversation.id, or the trace id when the spans carry none (as the detectors group them).
SELECT
    start_time AS time,
    sequence,
    tool_name AS tool,
    effect,
    result_status AS status,
    multiIf(result_complete, 'complete', complete_reported, 'incomplete', 'unknown (counts as incomplete)') AS completeness,
    result_item_count AS items,
    arrayStringConcat(result_reasons, ', ') AS reasons,
    result_continuation AS continuation,
    scope_resource AS resource,
    scope_snapshot AS snapshot,
    if(attributes['tooltrail.traversal.id'] = '', '',
       concat('page ', if(attributes['tooltrail.traversal.page'] = '', '?', attributes['tooltrail.traversal.page']),
              ' of ', attributes['tooltrail.traversal.id'])) AS paged_read,
    arrayStringConcat(warnings, ', ') AS warnings,
    mutation_basis AS basis,
    mutation_target_count AS targets,
    arrayStringConcat(arrayConcat(evidence_snapshots, evidence_call_ids), ', ') AS evidence,
    guard_decision AS guard,
    agent_name AS agent,
    tenant,
    tool_call_id,
    span_id
FROM tool_calls
WHERE $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND (session_id = ${session:singlequote} OR (session_id = '' AND trace_id = ${session:singlequote}))
ORDER BY start_time, ifNull(sequence, 0), span_id
LIMIT 2000
