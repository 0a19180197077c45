-- Findings still open (active, or resolved but Alertmanager not yet told), and every record of a thing that
-- happened at or after {since}: what the evaluator reconciles. '' = every tenant.
SELECT
    {{include:record_columns}}
FROM {db:Identifier}.findings FINAL
WHERE ({tenant:String} = '' OR tenant = {tenant:String})
  AND (resolved_at IS NULL OR alert_status = 'firing' OR event_time >= {since:DateTime64(3)})
