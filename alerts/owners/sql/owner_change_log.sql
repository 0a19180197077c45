-- The whole owner change log, oldest first (recorded_at, then change_id, order changes of the same millisecond).
SELECT tenant, subject_kind, subject, source, action, owner, team, changed_by, changed_at, reason
FROM {db:Identifier}.owner_changes
ORDER BY changed_at, recorded_at, change_id
