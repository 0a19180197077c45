-- Small tables for the mutation_after_incomplete_read detector, maintained at insert time by materialized views
-- on tool_calls, so the detector joins ~15% of the rows instead of scanning every tool call (alerts/README.md,
-- "Why the detector reads these tables"):
--   detector_mutations          every mutation, with what the finding reports
--   detector_incomplete_reads   reads whose result was not complete (false or unknown), with what the finding reports
--   detector_complete_evidence  one narrow row per (complete read, snapshot or call id it can stand as evidence for)
-- session_key / item_key are cityHash64 of (tenant, session[, kind, value]): UInt64 join keys. The join on
-- session_key also compares tenant and session, so it is exact; item_key is compared alone (see the detector).
--
-- Retried inserts: the writer re-sends a batch with the same insert_deduplication_token; with
-- deduplicate_blocks_in_dependent_materialized_views (on by default since ClickHouse 24.x) the views' blocks are
-- deduplicated too, which needs the same non_replicated_deduplication_window on these tables as on tool_calls.
--
-- Backfill: the INSERT ... SELECT statements at the end copy the rows already in tool_calls. Run the migration
-- before the ingest starts (as `tooltrail ingest` does): a batch stored between the CREATE MATERIALIZED VIEW and
-- the backfill would be copied twice.
CREATE TABLE IF NOT EXISTS {{database}}.detector_mutations {{on_cluster}}
(
    tenant                LowCardinality(String),
    session               String COMMENT 'session_id, or trace_id when the span had none',
    session_key           UInt64 COMMENT 'cityHash64(tenant, session)',
    start_time            DateTime64(9, 'UTC'),
    seq                   UInt64 COMMENT 'ifNull(sequence, 0)',
    trace_id              String,
    span_id               String,
    tool_call_id          String,
    tool_name             LowCardinality(String),
    agent_name            LowCardinality(String),
    scope_resource        LowCardinality(String),
    mutation_basis        LowCardinality(String),
    mutation_target_count Nullable(Int64),
    guard_decision        LowCardinality(String),
    evidence_snapshots    Array(String),
    evidence_call_ids     Array(String)
)
ENGINE = {{engine}}
PARTITION BY toDate(start_time)
ORDER BY (tenant, session, start_time, span_id)
TTL toDateTime(start_time) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS {{database}}.detector_incomplete_reads {{on_cluster}}
(
    tenant            LowCardinality(String),
    session           String COMMENT 'session_id, or trace_id when the span had none',
    session_key       UInt64 COMMENT 'cityHash64(tenant, session)',
    start_time        DateTime64(9, 'UTC'),
    seq               UInt64 COMMENT 'ifNull(sequence, 0)',
    trace_id          String,
    span_id           String,
    tool_call_id      String,
    tool_name         LowCardinality(String),
    scope_resource    LowCardinality(String),
    scope_snapshot    String,
    complete_reported Bool,
    result_reasons    Array(LowCardinality(String)),
    result_item_count Nullable(Int64)
)
ENGINE = {{engine}}
PARTITION BY toDate(start_time)
ORDER BY (tenant, session, start_time, span_id)
TTL toDateTime(start_time) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE TABLE IF NOT EXISTS {{database}}.detector_complete_evidence {{on_cluster}}
(
    tenant     LowCardinality(String),
    item_key   UInt64 COMMENT 'cityHash64(tenant, session, kind, value); kind: snapshot | call',
    start_time DateTime64(9, 'UTC'),
    seq        UInt64 COMMENT 'ifNull(sequence, 0)'
)
ENGINE = {{engine}}
PARTITION BY toDate(start_time)
ORDER BY (tenant, start_time)
TTL toDateTime(start_time) + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_mutations_mv {{on_cluster}}
TO {{database}}.detector_mutations AS
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, cityHash64(tenant, session) AS session_key,
    start_time, ifNull(sequence, 0) AS seq, trace_id, span_id, tool_call_id, tool_name, agent_name, scope_resource,
    mutation_basis, mutation_target_count, guard_decision, evidence_snapshots, evidence_call_ids
FROM {{database}}.tool_calls
WHERE effect = 'mutation';

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_incomplete_reads_mv {{on_cluster}}
TO {{database}}.detector_incomplete_reads AS
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, cityHash64(tenant, session) AS session_key,
    start_time, ifNull(sequence, 0) AS seq, trace_id, span_id, tool_call_id, tool_name, scope_resource,
    scope_snapshot, complete_reported, result_reasons, result_item_count
FROM {{database}}.tool_calls
WHERE effect = 'read' AND NOT result_complete;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.detector_complete_evidence_mv {{on_cluster}}
TO {{database}}.detector_complete_evidence AS
SELECT
    tenant, cityHash64(tenant, if(session_id = '', trace_id, session_id), item.1, item.2) AS item_key, start_time,
    ifNull(sequence, 0) AS seq
FROM {{database}}.tool_calls
ARRAY JOIN arrayFilter(i -> i.2 != '', [('snapshot', scope_snapshot), ('call', tool_call_id)]) AS item
WHERE effect = 'read' AND result_complete;

INSERT INTO {{database}}.detector_mutations
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, cityHash64(tenant, session) AS session_key,
    start_time, ifNull(sequence, 0) AS seq, trace_id, span_id, tool_call_id, tool_name, agent_name, scope_resource,
    mutation_basis, mutation_target_count, guard_decision, evidence_snapshots, evidence_call_ids
FROM {{database}}.tool_calls
WHERE effect = 'mutation';

INSERT INTO {{database}}.detector_incomplete_reads
SELECT
    tenant, if(session_id = '', trace_id, session_id) AS session, cityHash64(tenant, session) AS session_key,
    start_time, ifNull(sequence, 0) AS seq, trace_id, span_id, tool_call_id, tool_name, scope_resource,
    scope_snapshot, complete_reported, result_reasons, result_item_count
FROM {{database}}.tool_calls
WHERE effect = 'read' AND NOT result_complete;

INSERT INTO {{database}}.detector_complete_evidence
SELECT
    tenant, cityHash64(tenant, if(session_id = '', trace_id, session_id), item.1, item.2) AS item_key, start_time,
    ifNull(sequence, 0) AS seq
FROM {{database}}.tool_calls
ARRAY JOIN arrayFilter(i -> i.2 != '', [('snapshot', scope_snapshot), ('call', tool_call_id)]) AS item
WHERE effect = 'read' AND result_complete;
