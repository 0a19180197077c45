-- Back to the 0005 schema: duration_ns stored again. Re-added with the derivation as DEFAULT (so parts written
-- while it was an ALIAS read the same values), materialized into every part, then the DEFAULT removed as 0001
-- declared it (the writer before 0006 sends it).
ALTER TABLE {{database}}.tool_calls {{on_cluster}}
    DROP COLUMN duration_ns,
    ADD COLUMN duration_ns UInt64
        DEFAULT toUInt64(greatest(toUnixTimestamp64Nano(end_time) - toUnixTimestamp64Nano(start_time), 0))
        CODEC(T64, ZSTD(1))
        AFTER end_time;
ALTER TABLE {{database}}.tool_calls {{on_cluster}} MATERIALIZE COLUMN duration_ns SETTINGS mutations_sync = 2;
ALTER TABLE {{database}}.tool_calls {{on_cluster}} MODIFY COLUMN duration_ns REMOVE DEFAULT;
ALTER TABLE {{database}}.tool_calls {{on_cluster}}
    MODIFY COLUMN start_time CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN end_time CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN sequence CODEC(ZSTD(1)),
    MODIFY COLUMN result_item_count CODEC(ZSTD(1)),
    MODIFY COLUMN span_id CODEC(ZSTD(1)),
    MODIFY COLUMN parent_span_id CODEC(ZSTD(1));
ALTER TABLE {{database}}.tool_calls {{on_cluster}}
    MODIFY COLUMN mutation_target_count REMOVE CODEC,
    MODIFY COLUMN ingested_at REMOVE CODEC,
    MODIFY COLUMN session_id REMOVE CODEC,
    MODIFY COLUMN attributes REMOVE CODEC,
    MODIFY COLUMN resource_attributes REMOVE CODEC,
    MODIFY COLUMN event_attributes REMOVE CODEC,
    MODIFY COLUMN link_attributes REMOVE CODEC,
    MODIFY COLUMN tenant REMOVE CODEC,
    MODIFY COLUMN trace_state REMOVE CODEC,
    MODIFY COLUMN span_name REMOVE CODEC,
    MODIFY COLUMN span_kind REMOVE CODEC,
    MODIFY COLUMN tool_name REMOVE CODEC,
    MODIFY COLUMN agent_name REMOVE CODEC,
    MODIFY COLUMN agent_id REMOVE CODEC,
    MODIFY COLUMN service_name REMOVE CODEC,
    MODIFY COLUMN scope_name REMOVE CODEC,
    MODIFY COLUMN scope_version REMOVE CODEC,
    MODIFY COLUMN effect REMOVE CODEC,
    MODIFY COLUMN span_status_code REMOVE CODEC,
    MODIFY COLUMN span_status_message REMOVE CODEC,
    MODIFY COLUMN result_status REMOVE CODEC,
    MODIFY COLUMN result_complete REMOVE CODEC,
    MODIFY COLUMN complete_reported REMOVE CODEC,
    MODIFY COLUMN result_reasons REMOVE CODEC,
    MODIFY COLUMN result_continuation REMOVE CODEC,
    MODIFY COLUMN scope_resource REMOVE CODEC,
    MODIFY COLUMN scope_visibility REMOVE CODEC,
    MODIFY COLUMN scope_snapshot REMOVE CODEC,
    MODIFY COLUMN warnings REMOVE CODEC,
    MODIFY COLUMN mutation_basis REMOVE CODEC,
    MODIFY COLUMN evidence_snapshots REMOVE CODEC,
    MODIFY COLUMN evidence_call_ids REMOVE CODEC,
    MODIFY COLUMN guard_decision REMOVE CODEC,
    MODIFY COLUMN event_times REMOVE CODEC,
    MODIFY COLUMN event_names REMOVE CODEC,
    MODIFY COLUMN link_trace_ids REMOVE CODEC,
    MODIFY COLUMN link_span_ids REMOVE CODEC,
    MODIFY COLUMN link_trace_states REMOVE CODEC;
