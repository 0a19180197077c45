-- A warning no longer seen: propose its retirement, whoever owns it. Owner and lifecycle as
-- persistent_unowned_warning.sql.
SELECT tenant, warning_code, warning_source, owner, team, value FROM (
{{include:warning_with_owner}}
WHERE w.stale AND (w.state != 'retired' OR w.last_seen > w.state_changed_at)
)
WHERE 1
