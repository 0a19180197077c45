-- The log's entries rows of one (tenant, hour) (minmax index on row_hour), one per (log, first leaf): the rows the
-- writer logged for that hour, with their ids, entry hashes and the canonical version those were computed in.
SELECT
    log,
    toString(idx) AS idx_text,
    width,
    row_table,
    row_ids,
    lower(hex(hashes)) AS entries_hex,
    batch_id,
    toString(toUnixTimestamp64Milli(recorded_at)) AS recorded_ms_text,
    backfill,
    canonical_version
FROM {db:Identifier}.audit_log_tiles
WHERE tenant = {tenant:String} AND kind = 'entries' AND row_hour = toDateTime({hour_s:UInt32}, 'UTC')
ORDER BY log, idx
LIMIT 1 BY log, idx
