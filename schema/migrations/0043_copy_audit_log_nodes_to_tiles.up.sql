-- The Merkle log written before 0042 (audit_log_nodes, one row per node) copied into audit_log_tiles, so that
-- proofs, checkpoints and `verify` read one layout (audit/README.md, "Logs written before the tiles"):
--
-- Tiles: the stored nodes of tree levels 0, 8, 16, ... (tile levels 0, 1, 2, ...), 256 per tile. A tile holds the
-- hashes of consecutive indices from its start: a missing node (deleted from the old table) ends it, and what the
-- hole hides stays missing (verify reports it as it did).
-- Entries: the leaves' rows, one run per range of consecutive leaves of one (batch, hour, table). Their recorded
-- time and backfill mark are those of the digest records that cover the same rows (row_digests, which verify keeps
-- reading for them); the copies carry the hour.
--
-- audit_log_nodes is left as it was (nothing reads it any more). Run with the writers stopped: rows logged into
-- audit_log_nodes after this ran are not copied.
INSERT INTO {{database}}.audit_log_tiles (tenant, log, kind, level, idx, width, hashes)
SELECT tenant, log, 'tile', tile_level, tile_idx, length(run), arrayStringConcat(arrayMap(h -> unhex(h), run))
FROM
(
    SELECT
        tenant,
        log,
        intDiv(level, 8) AS tile_level,
        intDiv(idx, 256) AS tile_idx,
        arraySort(groupArrayDistinct((idx, hash))) AS nodes,
        arrayFirstIndex((n, i) -> n.1 != tile_idx * 256 + i - 1, nodes, arrayEnumerate(nodes)) AS hole,
        arrayMap(n -> n.2, if(hole = 0, nodes, arraySlice(nodes, 1, hole - 1))) AS run
    FROM {{database}}.audit_log_nodes
    WHERE level % 8 = 0
    GROUP BY tenant, log, level, tile_idx
)
WHERE length(run) > 0;

INSERT INTO {{database}}.audit_log_tiles
    (tenant, log, kind, level, idx, width, hashes, row_table, row_ids, row_hour, batch_id, recorded_at, backfill)
SELECT
    tenant,
    log,
    'entries',
    0,
    min(idx),
    count(),
    arrayStringConcat(arrayMap(l -> unhex(l.3), arraySort(groupArray((idx, row_id, entry_hash))))),
    row_table,
    arrayMap(l -> l.2, arraySort(groupArray((idx, row_id, entry_hash)))),
    row_hour,
    batch_id,
    toDateTime64(row_hour, 3, 'UTC'),
    false
FROM
(
    SELECT
        tenant, log, idx, row_table, row_id, entry_hash, row_hour, batch_id,
        toInt64(idx) - toInt64(row_number() OVER (PARTITION BY tenant, log, batch_id, row_hour, row_table ORDER BY idx)) AS island
    FROM
    (
        SELECT DISTINCT tenant, log, idx, row_table, row_id, entry_hash, row_hour, batch_id
        FROM {{database}}.audit_log_nodes
        WHERE level = 0
    )
)
GROUP BY tenant, log, batch_id, row_hour, row_table, island;
