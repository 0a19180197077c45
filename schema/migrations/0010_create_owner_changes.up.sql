-- Owners of tools, agents and warning (code, source) pairs, kept as an append-only change log: every change says
-- who made it, when and why, and nothing is ever updated in place (an audit trail, so no TTL).
--
-- subject_kind / subject / source:
--   'tool'    / gen_ai.tool.name          / ''
--   'agent'   / gen_ai.agent.name         / ''
--   'warning' / warning code (or '*')     / the warning's source ('*' owns every code of that source)
-- tenant '' applies to every tenant; a tenant-specific row wins over it.
CREATE TABLE IF NOT EXISTS {{database}}.owner_changes {{on_cluster}}
(
    change_id    UUID DEFAULT generateUUIDv4(),
    tenant       LowCardinality(String) COMMENT '\'\' = every tenant',
    subject_kind LowCardinality(String) COMMENT 'tool | agent | warning',
    subject      String COMMENT 'tool name, agent name, or warning code (* = any code of the source)',
    source       String COMMENT 'warning source; empty for tools and agents',
    action       LowCardinality(String) COMMENT 'set | remove',
    owner        String COMMENT 'the Alertmanager owner label value (a person, rotation or channel)',
    team         String COMMENT 'the Alertmanager team label value; may be empty',
    changed_by   String,
    changed_at   DateTime64(3, 'UTC'),
    reason       String
)
ENGINE = {{engine}}
ORDER BY (tenant, subject_kind, subject, source, changed_at);

-- The current owner of every subject: the latest change per key, when it is a `set`.
-- assigned_at is when that owner was set (the reminder deadline of a persistent warning counts from it).
CREATE VIEW IF NOT EXISTS {{database}}.owners {{on_cluster}} AS
SELECT
    tenant,
    subject_kind,
    subject,
    source,
    argMax(owner, (changed_at, change_id))      AS owner,
    argMax(team, (changed_at, change_id))       AS team,
    max(changed_at)                             AS assigned_at,
    argMax(changed_by, (changed_at, change_id)) AS assigned_by,
    argMax(reason, (changed_at, change_id))     AS reason
FROM {{database}}.owner_changes
GROUP BY tenant, subject_kind, subject, source
HAVING argMax(action, (changed_at, change_id)) = 'set';
