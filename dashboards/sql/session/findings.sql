-- The detectors' findings about this session.
SELECT
    event_time AS time,
    severity,
    kind,
    tool_name AS tool,
    mutation_basis AS basis,
    target_count,
    if(guard_decision = '', 'no guard', guard_decision) AS guard,
    arrayStringConcat(reasons, ', ') AS reasons,
    if(owner = '', 'UNOWNED', owner) AS owner,
    summary,
    tenant
FROM findings FINAL
WHERE $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
  AND session_id = ${session:singlequote}
ORDER BY event_time
LIMIT 500
