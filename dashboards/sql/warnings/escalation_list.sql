-- The escalation list: open findings of warnings that persist without an owner, or whose owner let the
-- acknowledged deadline pass (the evaluator pages these to the escalation receiver).
SELECT
    warning_code AS code,
    warning_source AS source,
    tenant,
    if(kind = 'persistent_unowned_warning', 'persistent, unowned', 'past its deadline') AS why,
    if(owner = '', 'UNOWNED', owner) AS owner,
    days_seen,
    occurrences,
    first_seen,
    last_seen,
    alert_status,
    summary
FROM findings FINAL
WHERE kind IN ('persistent_unowned_warning', 'warning_past_deadline')
  AND resolved_at IS NULL
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
ORDER BY days_seen DESC, occurrences DESC, code, source
LIMIT 500
