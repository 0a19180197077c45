-- The headers of the digest records in [from, to) and of their neighbours in the chain (seq - 1, seq + 1), so every
-- link that touches the range can be checked. `in_range` tells the two apart.
WITH in_range_records AS
(
    SELECT tenant, chain, seq
    FROM {db:Identifier}.row_digests
    WHERE hour >= toDateTime({from_s:UInt32}, 'UTC') AND hour < toDateTime({to_s:UInt32}, 'UTC')
      AND ({tenant:String} = '' OR tenant = {tenant:String})
)
SELECT
    tenant,
    chain,
    toString(seq) AS seq_text,
    toString(toUnixTimestamp(hour)) AS hour_text,
    batch_id,
    toString(toUnixTimestamp64Milli(recorded_at)) AS recorded_ms_text,
    backfill,
    canonical_version,
    row_count,
    rows_hash,
    previous_hash,
    digest_hash,
    signature,
    key_id,
    hour >= toDateTime({from_s:UInt32}, 'UTC') AND hour < toDateTime({to_s:UInt32}, 'UTC') AS in_range
FROM {db:Identifier}.row_digests
WHERE ({tenant:String} = '' OR tenant = {tenant:String})
  AND (
        (hour >= toDateTime({from_s:UInt32}, 'UTC') AND hour < toDateTime({to_s:UInt32}, 'UTC'))
        OR (tenant, chain, seq) IN (SELECT tenant, chain, seq - 1 FROM in_range_records)
        OR (tenant, chain, seq) IN (SELECT tenant, chain, seq + 1 FROM in_range_records)
      )
ORDER BY tenant, chain, seq
LIMIT 1000000
