-- Two changes of one subject in the same millisecond (`owners set` then `owners remove` from a script, or a warning
-- action that sets an owner right after another) share changed_at, and change_id is random: the current owner was
-- a coin toss between them. recorded_at is when ClickHouse stored the change (nanoseconds, set by the server), so
-- (changed_at, recorded_at) orders changes as they arrived, and changed_at stays the time the caller gave.
-- Rows stored before this migration get the migration's time (MATERIALIZE): their order among themselves is
-- unchanged, and it no longer depends on the moment a query runs.
ALTER TABLE {{database}}.owner_changes {{on_cluster}}
    ADD COLUMN IF NOT EXISTS recorded_at DateTime64(9, 'UTC') DEFAULT now64(9, 'UTC')
        COMMENT 'when ClickHouse stored the change; orders changes that share changed_at' AFTER changed_at;

ALTER TABLE {{database}}.owner_changes {{on_cluster}} MATERIALIZE COLUMN recorded_at;

CREATE OR REPLACE VIEW {{database}}.owners {{on_cluster}} AS
SELECT
    tenant,
    subject_kind,
    subject,
    source,
    argMax(owner, (changed_at, recorded_at, change_id))      AS owner,
    argMax(team, (changed_at, recorded_at, change_id))       AS team,
    max(changed_at)                                          AS assigned_at,
    argMax(changed_by, (changed_at, recorded_at, change_id)) AS assigned_by,
    argMax(reason, (changed_at, recorded_at, change_id))     AS reason
FROM {{database}}.owner_changes
GROUP BY tenant, subject_kind, subject, source
HAVING argMax(action, (changed_at, recorded_at, change_id)) = 'set';
