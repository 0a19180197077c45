CREATE OR REPLACE VIEW {{database}}.warning_states {{on_cluster}} AS
SELECT
    tenant,
    code,
    source,
    argMax(state, (changed_at, change_id))      AS state,
    argMax(due_at, (changed_at, change_id))     AS due_at,
    max(changed_at)                             AS state_changed_at,
    argMax(changed_by, (changed_at, change_id)) AS changed_by,
    argMax(reason, (changed_at, change_id))     AS reason
FROM {{database}}.warning_state_changes
GROUP BY tenant, code, source;

ALTER TABLE {{database}}.warning_state_changes {{on_cluster}} DROP COLUMN IF EXISTS change_seq;
