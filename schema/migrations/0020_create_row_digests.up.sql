-- Tamper evidence (audit/README.md), in the spirit of CloudTrail's digest files. For every batch it stores, the
-- writer records, per (tenant, hour of the rows' own time) the batch touched, one digest record: the id and
-- SHA-256 of the canonical form of every row it stored there, and a hash over the record chained to the previous
-- record of the same (tenant, chain). `tooltrail verify` recomputes row hashes from the tables and walks the chain.
--
-- chain: one writer instance's chain (TOOLTRAIL_DIGEST_CHAIN); two concurrent writers must use different chains.
-- ORDER BY (tenant, chain, seq): walking a chain is a range scan; verify reads one hour at a time through the
-- minmax index on hour.
CREATE TABLE IF NOT EXISTS {{database}}.row_digests {{on_cluster}}
(
    tenant            LowCardinality(String),
    chain             LowCardinality(String) COMMENT 'writer chain id',
    seq               UInt64 COMMENT 'position in the (tenant, chain) chain, from 1',
    hour              DateTime('UTC') COMMENT 'the hour of the rows (by their own start time), not of arrival',
    batch_id          String COMMENT 'the writer batch (its deduplication token); one batch -> one record per hour',
    recorded_at       DateTime64(3, 'UTC'),
    backfill          Bool COMMENT 'recorded after the hour had closed (hour end + grace): late arrival',
    canonical_version UInt16 COMMENT 'version of the canonical row form the hashes use (audit/canonical.ts)',
    row_count         UInt32,
    row_tables        Array(LowCardinality(String)) COMMENT 'per row: tool_calls | tool_call_warnings | spans',
    row_ids           Array(String) COMMENT 'per row: span id (warnings: the span id their rows belong to)',
    row_hashes        Array(String) COMMENT 'per row: SHA-256 hex of the canonical row',
    rows_hash         String COMMENT 'SHA-256 over the sorted (table, id, hash) lines',
    previous_hash     String COMMENT 'digest_hash of the previous record of the chain; empty for seq 1',
    digest_hash       String COMMENT 'SHA-256 over this record''s canonical fields, previous_hash included',
    signature         String COMMENT 'HMAC-SHA256(key, digest_hash) hex; empty when the writer has no key',
    key_id            String COMMENT 'first 16 hex of SHA-256(key): which key signed; empty when unsigned',

    INDEX idx_hour hour TYPE minmax GRANULARITY 1
)
ENGINE = {{engine}}
ORDER BY (tenant, chain, seq)
-- Kept as long as the rows they cover, plus the time for a late audit.
TTL hour + INTERVAL {{retention_days}} DAY + INTERVAL 30 DAY;
