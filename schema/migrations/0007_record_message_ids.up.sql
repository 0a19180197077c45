-- Re-sent requests (docs/exactly-once.md): a client that sends a request again after a 503 or a timeout, when
-- Kafka had stored the first copy, puts the same messages in the log twice. The ingest leaves out a message whose
-- id (SHA-256 of its value, 16 bytes) it saw in the same partition within its window. The batch log records:
-- - message_ids: the ids of a range's messages in offset order (hex, concatenated), so a restarted consumer
--   knows the messages stored before it started;
-- - skipped: the offsets the range left out, so a replayed range leaves out the same ones (same rows, same token).
ALTER TABLE {{database}}.ingest_batches {{on_cluster}}
    ADD COLUMN IF NOT EXISTS message_ids String DEFAULT '' CODEC(ZSTD(1)) AFTER messages,
    ADD COLUMN IF NOT EXISTS skipped Array(UInt64) DEFAULT [] AFTER message_ids;
