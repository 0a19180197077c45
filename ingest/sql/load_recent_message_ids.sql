-- The message ids of one partition's recorded ranges just before an offset (docs/exactly-once.md, "Re-sent
-- requests"): a restarted or newly assigned consumer recognises re-sends of messages stored before it started.
-- The stored record of a range carries the same ids as its intent; argMax keeps one row per range.
SELECT
    first_offset,
    argMax(message_ids, state) AS range_message_ids
FROM {database:Identifier}.ingest_batches
WHERE consumer_group = {group:String}
  AND topic = {topic:String}
  AND partition = {partition:UInt32}
  AND last_offset >= {from:UInt64}
  AND first_offset < {before:UInt64}
GROUP BY first_offset
ORDER BY first_offset
