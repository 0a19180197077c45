ALTER TABLE {{database}}.ingest_batches {{on_cluster}}
    DROP COLUMN IF EXISTS skipped,
    DROP COLUMN IF EXISTS message_ids;
