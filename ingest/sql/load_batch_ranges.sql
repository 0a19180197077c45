-- The recorded batch ranges of one partition from an offset on (docs/exactly-once.md): a restarted or newly
-- assigned consumer re-uses them so a replayed batch gets the same deduplication token.
SELECT
    first_offset,
    argMax(last_offset, state)     AS range_last,
    argMax(first_timestamp, state) AS range_first_timestamp,
    argMax(first_hash, state)      AS range_first_hash,
    max(state)                     AS range_state,
    argMax(skipped, state)         AS range_skipped
FROM {database:Identifier}.ingest_batches
WHERE consumer_group = {group:String}
  AND topic = {topic:String}
  AND partition = {partition:UInt32}
  AND last_offset >= {from:UInt64}
GROUP BY first_offset
ORDER BY first_offset
LIMIT 10000
