-- A mutation detector's rows ({{detector}}) with their owner: the tool's (this tenant's, else every tenant's), else
-- the agent's, as alerts/owners/resolve.ts resolves it. Grafana turns each row into one alert instance: string
-- columns are its labels, `value` its value.
SELECT f.tenant AS tenant, f.session AS session, toString(f.tool_name) AS tool,
       toString(f.agent_name) AS agent, f.mutation_span_id AS mutation_span_id, f.severity AS severity,
       multiIf(tt.owner != '', tt.owner, tg.owner != '', tg.owner, at.owner != '', at.owner, ag.owner) AS owner,
       multiIf(tt.owner != '', tt.team, tg.owner != '', tg.team, at.owner != '', at.team, ag.team) AS team,
       toFloat64(f.score) AS value
FROM (
{{detector}}
) AS f
LEFT JOIN (SELECT tenant, subject, owner, team FROM {database:Identifier}.owners WHERE subject_kind = 'tool' AND tenant != '') AS tt ON tt.tenant = f.tenant AND tt.subject = f.tool_name
LEFT JOIN (SELECT tenant, subject, owner, team FROM {database:Identifier}.owners WHERE subject_kind = 'tool' AND tenant = '') AS tg ON tg.subject = f.tool_name
LEFT JOIN (SELECT tenant, subject, owner, team FROM {database:Identifier}.owners WHERE subject_kind = 'agent' AND tenant != '') AS at ON at.tenant = f.tenant AND at.subject = f.agent_name
LEFT JOIN (SELECT tenant, subject, owner, team FROM {database:Identifier}.owners WHERE subject_kind = 'agent' AND tenant = '') AS ag ON ag.subject = f.agent_name
