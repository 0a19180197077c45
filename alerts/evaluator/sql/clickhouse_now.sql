-- ClickHouse's own clock, the axis of ingested_at (UTC, milliseconds).
SELECT toString(now64(3, 'UTC')) AS now
