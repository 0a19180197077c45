-- The Merkle log as tiles (audit/README.md, "The Merkle log"; C2SP tlog-tiles), replacing one row per node
-- (0021, copied here by 0043). Two kinds of rows, written together in one insert per batch (so a batch's tiles and
-- its leaves' data land together or not at all):
--
-- kind = 'tile': up to 256 consecutive hashes of tree level 8 * level (level 0: the leaf hashes
--   SHA-256(0x00 || entry hash); level 1: the roots of 256-leaf subtrees; ...), hashes [idx * 256, idx * 256 + width)
--   of that level. A full tile (width 256) is written once; the partial tile of the right edge is written again,
--   wider, as the tree grows: readers take the widest. Every other node is computed from one tile.
-- kind = 'entries': the data of leaves [idx, idx + width): rows of one (hour, table) stored by one batch, in leaf
--   order: their ids and entry hashes (SHA-256 of the canonical row). The per-hour index verify walks, and how a
--   proof finds a row's leaf.
--
-- No TTL: the tree outlives the rows (a leaf is a hash and a span id), so expired ranges stay verifiable.
CREATE TABLE IF NOT EXISTS {{database}}.audit_log_tiles {{on_cluster}}
(
    tenant      LowCardinality(String),
    log         LowCardinality(String) COMMENT 'the writer''s log (TOOLTRAIL_DIGEST_CHAIN)',
    kind        LowCardinality(String) COMMENT 'tile | entries',
    level       UInt8 COMMENT 'tile: its level (hashes of tree level 8 * level); entries: 0',
    idx         UInt64 COMMENT 'tile: its index at its level; entries: the first leaf index',
    width       UInt32 COMMENT 'tile: hashes held (1..256, < 256 = partial); entries: leaves',
    hashes      String COMMENT 'width SHA-256 hashes, 32 raw bytes each: tile hashes, or the entry hashes',
    row_table   LowCardinality(String) COMMENT 'entries: tool_calls | tool_call_warnings | spans; tiles: empty',
    row_ids     Array(String) COMMENT 'entries: the span id of each leaf (warnings: of their span)',
    row_hour    DateTime('UTC') COMMENT 'entries: the hour of the rows (their own time); retention is judged on it',
    batch_id    String COMMENT 'entries: the writer batch that stored the rows',
    recorded_at DateTime64(3, 'UTC') COMMENT 'entries: when the writer logged them',
    backfill    Bool COMMENT 'entries: logged after their hour had closed (hour end + grace): late arrival',

    INDEX idx_row_ids row_ids TYPE bloom_filter GRANULARITY 4,
    INDEX idx_row_hour row_hour TYPE minmax GRANULARITY 1
)
ENGINE = {{engine}}
ORDER BY (tenant, log, kind, level, idx, width)
