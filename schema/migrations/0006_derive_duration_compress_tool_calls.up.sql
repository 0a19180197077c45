-- Storage (issue 10: tool_calls <= 0.7x the OpenTelemetry exporter's otel_traces bytes per span). Measured on the
-- bench/anchor spans after OPTIMIZE FINAL: 53.1 -> 44.1 B/span (0.75x -> 0.62x otel_traces).
--
-- duration_ns is end_time - start_time, so storing it cost 3.8 B/span for nothing: it becomes an ALIAS computed
-- from the two stored instants. end_time stays stored as sent, so a clock that stepped back (end < start, possible
-- from any Kafka producer) loses nothing; its duration reads 0, as the writer always stored it. Readers select
-- duration_ns by name as before (an ALIAS is left out of SELECT * only); inserts must no longer send it.
-- ClickHouse cannot MODIFY a stored column into an ALIAS; dropping and re-adding it in ONE ALTER swaps it in a
-- single metadata change, with no moment where the column is missing.
ALTER TABLE {{database}}.tool_calls {{on_cluster}}
    DROP COLUMN duration_ns,
    ADD COLUMN duration_ns UInt64
        ALIAS toUInt64(greatest(toUnixTimestamp64Nano(end_time) - toUnixTimestamp64Nano(start_time), 0))
        COMMENT 'end_time - start_time in ns, 0 when end < start (derived, not stored)'
        AFTER end_time;
-- Codecs, each the smallest measured on those spans (B/span before -> after):
-- - times rise within a session: Delta, then T64 drops the zero high bits before ZSTD (start/end 4.4 -> 4.1);
-- - small integers: T64 first (result_item_count 1.22 -> 1.01, sequence 0.63 -> 0.03; mutation_target_count, all
--   NULL in the bench, alike);
-- - ZSTD instead of the default LZ4 on every low-entropy column: status/complete/continuation/reasons
--   ~0.41 -> ~0.18 each, ten empty arrays/maps 0.04 -> 0.006 each, ingested_at 0.35 -> 0.18;
-- - levels are not monotonic on this data: session_id (repeated within a session) 1.18 (LZ4) / 1.08 (ZSTD(1)) ->
--   0.21 at ZSTD(6); the maps 0.21 (LZ4) / 1.24 (ZSTD(1)) -> 0.04 at ZSTD(3); span/parent ids 8.27 -> 8.07 at
--   ZSTD(3); tool_call_id and trace_id stay at ZSTD(1) (ZSTD(3) was larger).
-- Only codecs change: parts written before keep theirs until a merge rewrites them (OPTIMIZE ... FINAL forces it).
ALTER TABLE {{database}}.tool_calls {{on_cluster}}
    MODIFY COLUMN start_time CODEC(Delta, T64, ZSTD(1)),
    MODIFY COLUMN end_time CODEC(Delta, T64, ZSTD(1)),
    MODIFY COLUMN sequence CODEC(T64, ZSTD(1)),
    MODIFY COLUMN result_item_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN mutation_target_count CODEC(T64, ZSTD(1)),
    MODIFY COLUMN ingested_at CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN session_id CODEC(ZSTD(6)),
    MODIFY COLUMN span_id CODEC(ZSTD(3)),
    MODIFY COLUMN parent_span_id CODEC(ZSTD(3)),
    MODIFY COLUMN attributes CODEC(ZSTD(3)),
    MODIFY COLUMN resource_attributes CODEC(ZSTD(3)),
    MODIFY COLUMN event_attributes CODEC(ZSTD(3)),
    MODIFY COLUMN link_attributes CODEC(ZSTD(3)),
    MODIFY COLUMN tenant CODEC(ZSTD(1)),
    MODIFY COLUMN trace_state CODEC(ZSTD(1)),
    MODIFY COLUMN span_name CODEC(ZSTD(1)),
    MODIFY COLUMN span_kind CODEC(ZSTD(1)),
    MODIFY COLUMN tool_name CODEC(ZSTD(1)),
    MODIFY COLUMN agent_name CODEC(ZSTD(1)),
    MODIFY COLUMN agent_id CODEC(ZSTD(1)),
    MODIFY COLUMN service_name CODEC(ZSTD(1)),
    MODIFY COLUMN scope_name CODEC(ZSTD(1)),
    MODIFY COLUMN scope_version CODEC(ZSTD(1)),
    MODIFY COLUMN effect CODEC(ZSTD(1)),
    MODIFY COLUMN span_status_code CODEC(ZSTD(1)),
    MODIFY COLUMN span_status_message CODEC(ZSTD(1)),
    MODIFY COLUMN result_status CODEC(ZSTD(1)),
    MODIFY COLUMN result_complete CODEC(ZSTD(1)),
    MODIFY COLUMN complete_reported CODEC(ZSTD(1)),
    MODIFY COLUMN result_reasons CODEC(ZSTD(1)),
    MODIFY COLUMN result_continuation CODEC(ZSTD(1)),
    MODIFY COLUMN scope_resource CODEC(ZSTD(1)),
    MODIFY COLUMN scope_visibility CODEC(ZSTD(1)),
    MODIFY COLUMN scope_snapshot CODEC(ZSTD(1)),
    MODIFY COLUMN warnings CODEC(ZSTD(1)),
    MODIFY COLUMN mutation_basis CODEC(ZSTD(1)),
    MODIFY COLUMN evidence_snapshots CODEC(ZSTD(1)),
    MODIFY COLUMN evidence_call_ids CODEC(ZSTD(1)),
    MODIFY COLUMN guard_decision CODEC(ZSTD(1)),
    MODIFY COLUMN event_times CODEC(ZSTD(1)),
    MODIFY COLUMN event_names CODEC(ZSTD(1)),
    MODIFY COLUMN link_trace_ids CODEC(ZSTD(1)),
    MODIFY COLUMN link_span_ids CODEC(ZSTD(1)),
    MODIFY COLUMN link_trace_states CODEC(ZSTD(1));
