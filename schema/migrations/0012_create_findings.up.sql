-- Every finding of the detectors, one row per fingerprint (the latest version wins: ReplacingMergeTree(version);
-- read with FINAL). The evaluator writes a new version when a finding is first seen, seen again, resolved or
-- sent to Alertmanager. Dashboards chart findings over time by severity and list them; see alerts/README.md.
--
-- kind: mutation_after_incomplete_read | absence_mutation_without_complete_evidence | dangerous_empty_reads |
--       persistent_unowned_warning | warning_past_deadline | warning_retirement_proposed
-- Columns that do not apply to a kind hold their empty value ('' / [] / 0 / NULL).
CREATE TABLE IF NOT EXISTS {{database}}.findings {{on_cluster}}
(
    fingerprint            String COMMENT 'stable id of the finding: same thing found = same fingerprint',
    kind                   LowCardinality(String),
    severity               LowCardinality(String) COMMENT 'info | warning | critical (scoring in alerts/README.md)',
    score                  UInt8 COMMENT 'severity score the severity was derived from',
    tenant                 LowCardinality(String),
    session_id             String COMMENT 'mutation findings: the agent session (gen_ai.conversation.id)',
    trace_id               String,
    mutation_span_id       String,
    event_time             DateTime64(9, 'UTC') COMMENT 'the mutation start; a warning''s last occurrence; a rate''s window end',
    tool_name              LowCardinality(String) COMMENT 'the mutation tool, or the read tool of a rate',
    agent_name             LowCardinality(String),
    scope_resource         String,
    mutation_basis         LowCardinality(String) COMMENT 'presence | absence',
    target_count           Nullable(Int64),
    guard_decision         LowCardinality(String) COMMENT 'allowed | refused | review_requested | empty = no guard',
    read_span_ids          Array(String) COMMENT 'the incomplete reads the mutation followed',
    read_trace_ids         Array(String) COMMENT 'trace of each read in read_span_ids (same order)',
    read_tool_names        Array(String),
    reasons                Array(LowCardinality(String)) COMMENT 'incomplete reasons (COMPLETENESS_UNKNOWN when unsaid)',
    incomplete_empty       Bool COMMENT 'one of the reads was incomplete and empty',
    missing_evidence       Array(String) COMMENT 'declared evidence (snapshots, call ids) no complete read matched',
    warning_code           LowCardinality(String),
    warning_source         String,
    days_seen              UInt32 COMMENT 'warnings: distinct days seen in the persistence window',
    occurrences            UInt64 COMMENT 'rates: incomplete empty reads; warnings: occurrences in the window',
    total                  UInt64 COMMENT 'rates: all reads of the tool in the window',
    rate                   Float64 COMMENT 'rates: occurrences / total',
    owner                  String COMMENT 'resolved owner; empty = unowned (paged to escalation)',
    team                   String,
    summary                String,
    finding_json           String COMMENT 'the finding exactly as `tooltrail findings --json` prints it',
    first_seen             DateTime64(3, 'UTC') COMMENT 'first evaluation that found it; the alert startsAt',
    last_seen              DateTime64(3, 'UTC') COMMENT 'latest evaluation that found it',
    resolved_at            Nullable(DateTime64(3, 'UTC')) COMMENT 'NULL while active',
    resolution             LowCardinality(String) COMMENT 'no_longer_matches | expired | empty while active',
    alert_status           LowCardinality(String) COMMENT 'pending | firing | resolved | not_sent',
    last_sent_at           Nullable(DateTime64(3, 'UTC')) COMMENT 'latest successful POST to Alertmanager',
    version                UInt64 COMMENT 'wall-clock microseconds of the write; the newest row wins'
)
ENGINE = {{engine:ReplacingMergeTree(version)}}
ORDER BY (tenant, kind, fingerprint)
TTL toDateTime(first_seen) + INTERVAL {{retention_days}} DAY;
