-- Warnings retired or acknowledged over time (the lifecycle log; people and the evaluator both write it).
SELECT
    $__timeInterval(changed_at) AS time,
    state,
    count() AS warnings
FROM warning_state_changes
WHERE $__timeFilter(changed_at)
  AND state IN ('retired', 'acknowledged')
  AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
GROUP BY time, state
ORDER BY time, state
