-- The cluster variant's Distributed tables: `<table>_all` over each shard's local `<table>`, applied by
-- `tooltrail migrate` after the migrations when TOOLTRAIL_CLICKHOUSE_CLUSTER is set (CREATE OR REPLACE on every run,
-- so each follows its local table's columns after an ALTER: a Distributed table keeps no data of its own).
-- Sharding keys (docs/clickhouse-cluster.md says why):
--   session-keyed rows: cityHash64(tenant, session) with session = session_id, or trace_id when the span had none,
--     the detectors' own session_key: a session lands whole on one shard, so the materialized views that feed the
--     detector tables run on the shard that holds the whole session and the detectors' per-session joins stay local;
--   ReplacingMergeTree / argMax tables: a prefix of their ORDER BY, so every version of a row meets on one shard;
--   spans: the trace (reconstruction reads a trace at a time);
--   detector_* tables are filled by materialized views on the shard that stored the tool_calls rows (so already by
--     session); their key only places direct inserts, which nothing does (detector_complete_evidence has no session
--     column: item_key already hashes tenant and session).
-- Placeholders: {{database}}, {{cluster}}.
CREATE OR REPLACE TABLE {{database}}.tool_calls_all ON CLUSTER {{cluster}} AS {{database}}.tool_calls
ENGINE = Distributed({{cluster}}, {{database}}, tool_calls, cityHash64(tenant, if(session_id = '', trace_id, session_id)));

CREATE OR REPLACE TABLE {{database}}.tool_call_warnings_all ON CLUSTER {{cluster}} AS {{database}}.tool_call_warnings
ENGINE = Distributed({{cluster}}, {{database}}, tool_call_warnings, cityHash64(tenant, if(session_id = '', trace_id, session_id)));

CREATE OR REPLACE TABLE {{database}}.spans_all ON CLUSTER {{cluster}} AS {{database}}.spans
ENGINE = Distributed({{cluster}}, {{database}}, spans, cityHash64(Tenant, TraceId));

CREATE OR REPLACE TABLE {{database}}.ingest_batches_all ON CLUSTER {{cluster}} AS {{database}}.ingest_batches
ENGINE = Distributed({{cluster}}, {{database}}, ingest_batches, cityHash64(consumer_group, topic, partition));

CREATE OR REPLACE TABLE {{database}}.owner_changes_all ON CLUSTER {{cluster}} AS {{database}}.owner_changes
ENGINE = Distributed({{cluster}}, {{database}}, owner_changes, cityHash64(tenant, subject_kind, subject, source));

CREATE OR REPLACE TABLE {{database}}.warning_state_changes_all ON CLUSTER {{cluster}} AS {{database}}.warning_state_changes
ENGINE = Distributed({{cluster}}, {{database}}, warning_state_changes, cityHash64(tenant, code, source));

CREATE OR REPLACE TABLE {{database}}.findings_all ON CLUSTER {{cluster}} AS {{database}}.findings
ENGINE = Distributed({{cluster}}, {{database}}, findings, cityHash64(tenant, kind, fingerprint));

CREATE OR REPLACE TABLE {{database}}.evaluator_state_all ON CLUSTER {{cluster}} AS {{database}}.evaluator_state
ENGINE = Distributed({{cluster}}, {{database}}, evaluator_state, cityHash64(evaluator, key));

CREATE OR REPLACE TABLE {{database}}.detector_mutations_all ON CLUSTER {{cluster}} AS {{database}}.detector_mutations
ENGINE = Distributed({{cluster}}, {{database}}, detector_mutations, cityHash64(tenant, session));

CREATE OR REPLACE TABLE {{database}}.detector_incomplete_reads_all ON CLUSTER {{cluster}} AS {{database}}.detector_incomplete_reads
ENGINE = Distributed({{cluster}}, {{database}}, detector_incomplete_reads, cityHash64(tenant, session));

CREATE OR REPLACE TABLE {{database}}.detector_complete_evidence_all ON CLUSTER {{cluster}} AS {{database}}.detector_complete_evidence
ENGINE = Distributed({{cluster}}, {{database}}, detector_complete_evidence, item_key);

CREATE OR REPLACE TABLE {{database}}.detector_arrivals_all ON CLUSTER {{cluster}} AS {{database}}.detector_arrivals
ENGINE = Distributed({{cluster}}, {{database}}, detector_arrivals, cityHash64(tenant, session));

CREATE OR REPLACE TABLE {{database}}.detector_complete_reads_all ON CLUSTER {{cluster}} AS {{database}}.detector_complete_reads
ENGINE = Distributed({{cluster}}, {{database}}, detector_complete_reads, cityHash64(tenant, session));

CREATE OR REPLACE TABLE {{database}}.row_digests_all ON CLUSTER {{cluster}} AS {{database}}.row_digests
ENGINE = Distributed({{cluster}}, {{database}}, row_digests, cityHash64(tenant, chain));

CREATE OR REPLACE TABLE {{database}}.audit_log_nodes_all ON CLUSTER {{cluster}} AS {{database}}.audit_log_nodes
ENGINE = Distributed({{cluster}}, {{database}}, audit_log_nodes, cityHash64(tenant, log));

CREATE OR REPLACE TABLE {{database}}.audit_log_tiles_all ON CLUSTER {{cluster}} AS {{database}}.audit_log_tiles
ENGINE = Distributed({{cluster}}, {{database}}, audit_log_tiles, cityHash64(tenant, log));

CREATE OR REPLACE TABLE {{database}}.audit_checkpoints_all ON CLUSTER {{cluster}} AS {{database}}.audit_checkpoints
ENGINE = Distributed({{cluster}}, {{database}}, audit_checkpoints, cityHash64(tenant, log));

CREATE OR REPLACE TABLE {{database}}.warning_days_all ON CLUSTER {{cluster}} AS {{database}}.warning_days
ENGINE = Distributed({{cluster}}, {{database}}, warning_days, cityHash64(tenant, code, source));

CREATE OR REPLACE TABLE {{database}}.audit_deletions_all ON CLUSTER {{cluster}} AS {{database}}.audit_deletions
ENGINE = Distributed({{cluster}}, {{database}}, audit_deletions, cityHash64(CAST(tenant AS String)));

CREATE OR REPLACE TABLE {{database}}.read_minutes_all ON CLUSTER {{cluster}} AS {{database}}.read_minutes
ENGINE = Distributed({{cluster}}, {{database}}, read_minutes, cityHash64(CAST(tenant AS String), CAST(tool_name AS String)));
