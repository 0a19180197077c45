-- Evaluator bookkeeping that must survive restarts (the watermark: everything before it was evaluated).
-- One row per (evaluator, key); the newest version wins. Read with FINAL.
CREATE TABLE IF NOT EXISTS {{database}}.evaluator_state {{on_cluster}}
(
    evaluator  LowCardinality(String) COMMENT 'evaluator name (alerts.evaluatorName)',
    key        LowCardinality(String) COMMENT 'e.g. watermark',
    value      String,
    updated_at DateTime64(3, 'UTC'),
    version    UInt64 COMMENT 'wall-clock microseconds of the write; the newest row wins'
)
ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY (evaluator, key);
