-- A persistent warning someone owns, past its deadline: the acknowledgement's due date, else the assignment (or
-- the acknowledgement) plus the reminder delay. Owner and lifecycle as persistent_unowned_warning.sql.
SELECT tenant, warning_code, warning_source, owner, team, value FROM (
{{include:warning_with_owner}}
WHERE w.persistent AND NOT w.stale AND (w.state != 'retired' OR w.last_seen > w.state_changed_at)
)
WHERE owner != '' AND $__toTime > if(state = 'acknowledged' AND due_at IS NOT NULL, due_at,
           greatest(assigned_at, if(state = 'acknowledged', ifNull(state_changed_at, assigned_at), assigned_at)) + toIntervalDay({remind_after_days:UInt32}))
