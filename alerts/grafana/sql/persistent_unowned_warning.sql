-- persistent_unowned_warning ({{detector}}) with its owner: the (code, source) pair's, else the source's (`*`);
-- this tenant's, else every tenant's. A retired warning stays quiet unless seen again after its retirement (the
-- lifecycle of alerts/warnings/lifecycle.ts, without the transitions only the evaluator records). Fires: nobody.
SELECT tenant, warning_code, warning_source, owner, team, value FROM (
{{include:warning_with_owner}}
WHERE w.persistent AND NOT w.stale AND (w.state != 'retired' OR w.last_seen > w.state_changed_at)
)
WHERE owner = ''
