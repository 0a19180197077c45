-- The migrations applied, one row per version (the newest applied_at wins: a version reverted and applied again).
CREATE TABLE IF NOT EXISTS {{database}}.schema_migrations {{on_cluster}}
(
    version    UInt32,
    name       String,
    checksum   String,
    applied_at DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = {{engine:ReplacingMergeTree(applied_at)}}
ORDER BY version
