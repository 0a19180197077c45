-- Two transitions of one warning in one evaluation share changed_at (retired -> active -> escalated), and change_id
-- is random: the current state was a coin toss between them. change_seq is a change's position within the write
-- that recorded it, so (changed_at, change_seq) orders every change of a warning, and changed_at stays the true time.
ALTER TABLE {{database}}.warning_state_changes {{on_cluster}}
    ADD COLUMN IF NOT EXISTS change_seq UInt32 DEFAULT 0 COMMENT 'position within the write that recorded it' AFTER change_id;

CREATE OR REPLACE VIEW {{database}}.warning_states {{on_cluster}} AS
SELECT
    tenant,
    code,
    source,
    argMax(state, (changed_at, change_seq, change_id))      AS state,
    argMax(due_at, (changed_at, change_seq, change_id))     AS due_at,
    max(changed_at)                                         AS state_changed_at,
    argMax(changed_by, (changed_at, change_seq, change_id)) AS changed_by,
    argMax(reason, (changed_at, change_seq, change_id))     AS reason
FROM {{database}}.warning_state_changes
GROUP BY tenant, code, source;
