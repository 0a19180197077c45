-- The Merkle log (audit/README.md, "The Merkle log"): per (tenant, log) an RFC 6962 tree over the digest entries the
-- writer records, appended as batches are stored. Every complete node is kept: level 0 are the leaves
-- (SHA-256(0x00 || entry hash)) with the row they stand for, level L index i is the subtree of leaves
-- [i * 2^L, (i + 1) * 2^L). A proof reads O(log n) nodes by primary key; nothing is ever rewritten.
--
-- log: the writer's log (its digest chain name); two writer processes append to different logs.
-- No TTL: the tree outlives the rows (a leaf is a hash and a span id), so expired ranges stay verifiable.
CREATE TABLE IF NOT EXISTS {{database}}.audit_log_nodes {{on_cluster}}
(
    tenant      LowCardinality(String),
    log         LowCardinality(String) COMMENT 'the writer''s log (TOOLTRAIL_DIGEST_CHAIN)',
    level       UInt8 COMMENT '0 = leaf; a node at level L covers 2^L leaves',
    idx         UInt64 COMMENT 'position at its level: covers leaves [idx * 2^level, (idx + 1) * 2^level)',
    hash        String COMMENT 'SHA-256 hex: leaves 0x00 || entry hash, nodes 0x01 || left || right',
    row_table   LowCardinality(String) COMMENT 'leaves: tool_calls | tool_call_warnings | spans; empty above',
    row_id      String COMMENT 'leaves: the span id of the row (warnings: of their span); empty above',
    entry_hash  String COMMENT 'leaves: the digest entry hash, SHA-256 hex of the canonical row; empty above',
    row_hour    DateTime('UTC') COMMENT 'leaves: the hour of the row (its own time); retention is judged on it',
    batch_id    String COMMENT 'leaves: the writer batch that stored the row',

    INDEX idx_row_id row_id TYPE bloom_filter GRANULARITY 4
)
ENGINE = {{engine}}
ORDER BY (tenant, log, level, idx)
