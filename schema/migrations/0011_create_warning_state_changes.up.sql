-- Lifecycle of each warning (tenant, code, source): active -> acknowledged | escalated -> retired, kept as an
-- append-only change log with who, when and why (people through `tooltrail warnings`, the evaluator as
-- 'tooltrail-evaluator'). A warning with no row is `active`. No TTL: this is the audit trail.
CREATE TABLE IF NOT EXISTS {{database}}.warning_state_changes {{on_cluster}}
(
    change_id  UUID DEFAULT generateUUIDv4(),
    tenant     LowCardinality(String),
    code       LowCardinality(String) COMMENT 'warning code, e.g. STALE_INDEX',
    source     String COMMENT 'the index, API or field the warning is about',
    from_state LowCardinality(String) COMMENT 'state before the change',
    state      LowCardinality(String) COMMENT 'active | acknowledged | escalated | retired',
    due_at     Nullable(DateTime64(3, 'UTC')) COMMENT 'acknowledged: when the owner means to have fixed it',
    changed_by String,
    changed_at DateTime64(3, 'UTC'),
    reason     String
)
ENGINE = {{engine}}
ORDER BY (tenant, code, source, changed_at);

-- The current state of every warning that ever changed state: the latest change per (tenant, code, source).
CREATE VIEW IF NOT EXISTS {{database}}.warning_states {{on_cluster}} AS
SELECT
    tenant,
    code,
    source,
    argMax(state, (changed_at, change_id))      AS state,
    argMax(due_at, (changed_at, change_id))     AS due_at,
    max(changed_at)                             AS state_changed_at,
    argMax(changed_by, (changed_at, change_id)) AS changed_by,
    argMax(reason, (changed_at, change_id))     AS reason
FROM {{database}}.warning_state_changes
GROUP BY tenant, code, source;
