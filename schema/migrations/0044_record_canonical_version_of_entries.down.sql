ALTER TABLE {{database}}.audit_log_tiles {{on_cluster}} DROP COLUMN IF EXISTS canonical_version;
