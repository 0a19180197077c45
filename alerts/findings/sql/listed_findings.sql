-- Findings seen at or after {since}, oldest first; with {active_only}, the unresolved ones. '' = every tenant.
SELECT
    {{include:record_columns}}
FROM {db:Identifier}.findings FINAL
WHERE ({tenant:String} = '' OR tenant = {tenant:String})
  AND last_seen >= {since:DateTime64(3)}
  AND (NOT {active_only:Bool} OR resolved_at IS NULL)
ORDER BY first_seen, fingerprint
