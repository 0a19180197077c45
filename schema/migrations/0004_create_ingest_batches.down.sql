DROP TABLE IF EXISTS {{database}}.ingest_batches {{on_cluster}};
