SELECT w.tenant AS tenant, w.code AS warning_code, w.source AS warning_source,
       multiIf(et.owner != '', et.owner, eg.owner != '', eg.owner, st.owner != '', st.owner, sg.owner) AS owner,
       multiIf(et.owner != '', et.team, eg.owner != '', eg.team, st.owner != '', st.team, sg.team) AS team,
       multiIf(et.owner != '', et.assigned_at, eg.owner != '', eg.assigned_at, st.owner != '', st.assigned_at,
               sg.assigned_at) AS assigned_at,
       w.state AS state, w.due_at AS due_at, w.state_changed_at AS state_changed_at,
       toFloat64(w.days_seen) AS value
FROM (
{{detector}}
) AS w
LEFT JOIN (SELECT tenant, subject, source, owner, team, assigned_at FROM {database:Identifier}.owners WHERE subject_kind = 'warning' AND subject != '*' AND tenant != '') AS et ON et.tenant = w.tenant AND et.subject = w.code AND et.source = w.source
LEFT JOIN (SELECT tenant, subject, source, owner, team, assigned_at FROM {database:Identifier}.owners WHERE subject_kind = 'warning' AND subject != '*' AND tenant = '') AS eg ON eg.subject = w.code AND eg.source = w.source
LEFT JOIN (SELECT tenant, subject, source, owner, team, assigned_at FROM {database:Identifier}.owners WHERE subject_kind = 'warning' AND subject = '*' AND tenant != '') AS st ON st.tenant = w.tenant AND st.source = w.source
LEFT JOIN (SELECT tenant, subject, source, owner, team, assigned_at FROM {database:Identifier}.owners WHERE subject_kind = 'warning' AND subject = '*' AND tenant = '') AS sg ON sg.source = w.source
