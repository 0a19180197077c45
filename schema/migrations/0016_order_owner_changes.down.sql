CREATE OR REPLACE VIEW {{database}}.owners {{on_cluster}} AS
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

ALTER TABLE {{database}}.owner_changes {{on_cluster}} DROP COLUMN IF EXISTS recorded_at;
