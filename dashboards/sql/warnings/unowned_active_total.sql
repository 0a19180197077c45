-- Open escalations: persistent unowned warnings and warnings past their deadline.
SELECT count() AS escalations
FROM findings FINAL
WHERE kind IN ('persistent_unowned_warning', 'warning_past_deadline')
  AND resolved_at IS NULL
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
