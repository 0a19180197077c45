-- The canonical version an entries row's hashes were computed in (audit/canonical.ts, CANONICAL_VERSION), as the
-- digest records (0020) carried theirs: when the canonical form changes (a column added to a table, another
-- encoding), verify recomputes each row in the version its leaf recorded, and names a version it does not know
-- instead of reporting every row changed. Rows logged before carry version 1 (the only one there was). Tiles: unused.
ALTER TABLE {{database}}.audit_log_tiles {{on_cluster}}
    ADD COLUMN IF NOT EXISTS canonical_version UInt8 DEFAULT 1
        COMMENT 'entries: the canonical version of the entry hashes (audit/canonical.ts); tiles: unused';
