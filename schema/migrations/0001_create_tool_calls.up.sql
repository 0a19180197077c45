-- One row per tool span (gen_ai.operation.name = 'execute_tool'), every completeness-contract field typed.
--
-- ORDER BY (tenant, session_id, start_time, span_id): the detectors join a mutation with the reads that came
-- before it IN THE SAME SESSION within a time window, and the reconstruction reads one session in time order;
-- both become a range scan of one (tenant, session) prefix. Dashboards that slice by tool/time prune by the
-- daily partition and the minmax of start_time. Trace lookups use the bloom filter on trace_id.
--
-- Placeholders, filled by the migration runner from validated configuration (never from user input):
--   {{database}}        target database
--   {{on_cluster}}      '' or 'ON CLUSTER <name>' (cluster variant)
--   {{engine}}          'MergeTree' or the ReplicatedMergeTree(...) of the cluster variant
--   {{retention_days}}  TTL in days (integer)
CREATE TABLE IF NOT EXISTS {{database}}.tool_calls {{on_cluster}}
(
    tenant                LowCardinality(String),
    session_id            String COMMENT 'gen_ai.conversation.id',
    sequence              Nullable(UInt64) COMMENT 'tooltrail.session.sequence; NULL when the emitter sent none',
    start_time            DateTime64(9, 'UTC'),
    end_time              DateTime64(9, 'UTC'),
    duration_ns           UInt64,
    trace_id              String COMMENT 'lowercase hex, 32 chars',
    span_id               String COMMENT 'lowercase hex, 16 chars',
    parent_span_id        String COMMENT 'empty for a root span',
    trace_state           String,
    span_name             LowCardinality(String) COMMENT 'execute_tool {tool name}',
    span_kind             LowCardinality(String) COMMENT 'OTel kind: Unspecified | Internal | Server | Client | Producer | Consumer',
    tool_call_id          String COMMENT 'gen_ai.tool.call.id',
    tool_name             LowCardinality(String) COMMENT 'gen_ai.tool.name',
    agent_name            LowCardinality(String) COMMENT 'gen_ai.agent.name',
    agent_id              String COMMENT 'gen_ai.agent.id',
    service_name          LowCardinality(String) COMMENT 'resource service.name',
    scope_name            LowCardinality(String) COMMENT 'instrumentation scope',
    scope_version         LowCardinality(String),
    effect                LowCardinality(String) COMMENT 'tooltrail.effect: read | mutation | empty when absent',
    span_status_code      LowCardinality(String) COMMENT 'OTel status: Unset | Ok | Error',
    span_status_message   String,
    result_status         LowCardinality(String) COMMENT 'tooltrail.result.status: complete | partial | error',
    -- Absent = unknown = not complete: result_complete is false unless the span said true; complete_reported
    -- tells "said false" from "said nothing".
    result_complete       Bool COMMENT 'tooltrail.result.complete (false when absent)',
    complete_reported     Bool COMMENT 'true when the span carried tooltrail.result.complete',
    result_reasons        Array(LowCardinality(String)) COMMENT 'tooltrail.result.reasons',
    result_item_count     Nullable(Int64) COMMENT 'tooltrail.result.item_count',
    result_continuation   LowCardinality(String) COMMENT 'tooltrail.result.continuation',
    scope_resource        LowCardinality(String) COMMENT 'tooltrail.scope.resource',
    scope_visibility      String COMMENT 'tooltrail.scope.visibility',
    scope_snapshot        String COMMENT 'tooltrail.scope.snapshot',
    warnings              Array(LowCardinality(String)) COMMENT 'tooltrail.warnings (codes)',
    mutation_basis        LowCardinality(String) COMMENT 'tooltrail.mutation.basis: presence | absence',
    mutation_target_count Nullable(Int64) COMMENT 'tooltrail.mutation.target_count',
    evidence_snapshots    Array(String) COMMENT 'tooltrail.mutation.evidence_snapshots',
    evidence_call_ids     Array(String) COMMENT 'tooltrail.mutation.evidence_call_ids',
    guard_decision        LowCardinality(String) COMMENT 'tooltrail.guard.decision; empty when no guard ran',
    attributes            Map(LowCardinality(String), String) COMMENT 'every other span attribute; arrays as JSON',
    resource_attributes   Map(LowCardinality(String), String),
    -- Every span event (warning events included; they are also exploded into tool_call_warnings) and link, so a
    -- tool span loses nothing on its way in (e.g. the `exception` event of a failed call).
    event_times           Array(DateTime64(9, 'UTC')),
    event_names           Array(LowCardinality(String)),
    event_attributes      Array(Map(LowCardinality(String), String)),
    link_trace_ids        Array(String),
    link_span_ids         Array(String),
    link_trace_states     Array(String),
    link_attributes       Array(Map(LowCardinality(String), String)),
    ingested_at           DateTime64(3, 'UTC') DEFAULT now64(3),

    INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_tool_call_id tool_call_id TYPE bloom_filter(0.001) GRANULARITY 1,
    INDEX idx_scope_snapshot scope_snapshot TYPE bloom_filter(0.01) GRANULARITY 1
)
ENGINE = {{engine}}
PARTITION BY toDate(start_time)
ORDER BY (tenant, session_id, start_time, span_id)
TTL toDateTime(start_time) + INTERVAL {{retention_days}} DAY
-- Keeps the tokens of recent inserts so a retried batch (same insert_deduplication_token) is stored once.
SETTINGS non_replicated_deduplication_window = 10000;
