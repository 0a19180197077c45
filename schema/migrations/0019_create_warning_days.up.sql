-- A daily rollup of tool_call_warnings for the warning lifecycle (persistent_unowned_warning.sql): one row per
-- (tenant, code, source, day) once merged, with the day's occurrences, first and last time, and up to 5 tools and
-- agents, so judging 90 days of warnings reads ~1 row per warning per day instead of every occurrence.
-- Filled by a materialized view at insert time; AggregatingMergeTree merges the rows of one day (the detector
-- still aggregates, as parts may not be merged yet). Retried inserts are deduplicated as in 0014.
-- Backfill: the INSERT ... SELECT at the end rolls up the warnings already stored (run before the ingest starts).
CREATE TABLE IF NOT EXISTS {{database}}.warning_days {{on_cluster}}
(
    tenant      LowCardinality(String),
    code        LowCardinality(String),
    source      String,
    day         Date,
    occurrences SimpleAggregateFunction(sum, UInt64),
    first_seen  SimpleAggregateFunction(min, DateTime64(9, 'UTC')),
    last_seen   SimpleAggregateFunction(max, DateTime64(9, 'UTC')),
    tools       AggregateFunction(groupUniqArray(5), String),
    agents      AggregateFunction(groupUniqArray(5), String)
)
ENGINE = {{engine:AggregatingMergeTree}}
PARTITION BY toYYYYMM(day)
ORDER BY (tenant, code, source, day)
TTL day + INTERVAL {{retention_days}} DAY
SETTINGS non_replicated_deduplication_window = 10000;

CREATE MATERIALIZED VIEW IF NOT EXISTS {{database}}.warning_days_mv {{on_cluster}}
TO {{database}}.warning_days AS
SELECT
    tenant, code, source, toDate(time) AS day, count() AS occurrences, min(time) AS first_seen,
    max(time) AS last_seen, groupUniqArrayState(5)(toString(tool_name)) AS tools,
    groupUniqArrayState(5)(toString(agent_name)) AS agents
FROM {{database}}.tool_call_warnings
GROUP BY tenant, code, source, day;

INSERT INTO {{database}}.warning_days
SELECT
    tenant, code, source, toDate(time) AS day, count() AS occurrences, min(time) AS first_seen,
    max(time) AS last_seen, groupUniqArrayState(5)(toString(tool_name)) AS tools,
    groupUniqArrayState(5)(toString(agent_name)) AS agents
FROM {{database}}.tool_call_warnings
GROUP BY tenant, code, source, day;
