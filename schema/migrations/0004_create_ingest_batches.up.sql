-- The ingest's batch log (docs/exactly-once.md): the offset range of every batch is recorded here BEFORE its rows
-- are inserted, so a restart re-reads and re-inserts exactly the same range with the same deduplication token.
-- `state` 0 = intent (range chosen), 1 = stored (rows acknowledged); ReplacingMergeTree keeps the highest state.
--
-- ORDER BY (consumer_group, topic, partition, first_offset): a restart reads one partition's ranges from its
-- committed offset on, a range scan.
CREATE TABLE IF NOT EXISTS {{database}}.ingest_batches {{on_cluster}}
(
    consumer_group   LowCardinality(String),
    topic            LowCardinality(String),
    partition        UInt32,
    first_offset     UInt64,
    last_offset      UInt64,
    first_timestamp  Int64 COMMENT 'Kafka timestamp (ms) of the first message: tells a re-created topic apart',
    first_hash       String COMMENT 'hash of the first message value, same purpose',
    state            UInt8 COMMENT '0 intent, 1 stored',
    messages         UInt32,
    recorded_at      DateTime64(3, 'UTC') DEFAULT now64(3)
)
ENGINE = {{engine:ReplacingMergeTree(state)}}
ORDER BY (consumer_group, topic, partition, first_offset)
-- Ranges only matter while their messages can be re-read; Kafka's default retention is 7 days.
TTL toDateTime(recorded_at) + INTERVAL 30 DAY;
