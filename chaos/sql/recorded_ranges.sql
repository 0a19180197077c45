-- Every range the ingest recorded for the soak's topic, each record apart (no FINAL): the intent and the stored
-- mark of one range are two rows, and two members that cut the same offsets differently leave two ranges.
SELECT
    partition,
    first_offset,
    last_offset,
    state,
    toString(recorded_at) AS recorded_at
FROM {database:Identifier}.ingest_batches
WHERE topic = {topic:String}
-- The column, not its text alias: the order is the time's.
ORDER BY partition, first_offset, ingest_batches.recorded_at
