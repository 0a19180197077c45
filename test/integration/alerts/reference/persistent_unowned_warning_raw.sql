-- Reference for test/integration/alerts/warning-days.test.ts: persistent_unowned_warning as it was before the
-- daily rollup (migration 0019), counting every occurrence in tool_call_warnings. The detector must return the same
-- rows.
--
-- Rule: a warning is a (tenant, code, source) pair of `tooltrail.warning` span events.
--   * persistent: seen on most days of the window: more than {min_days_fraction} of the last {window_days} days
--     (default 0.5 of 90). Persistent with no owner -> escalate; with an owner but still persistent past its
--     deadline (the acknowledgement's due date, else the owner's assignment + alerts.warnings.remindAfterDays)
--     -> remind the owner.
--   * stale: not seen for {retire_after_days} days -> propose retirement (or retire it, when configured).
--   * a retired warning seen again after its retirement becomes active again.
-- Owners are resolved outside this query (one resolution for every finding: alerts/owners/resolve.ts).
--
-- One row per warning seen within the last window_days + retire_after_days, with its current lifecycle state
-- (`active` when it never changed state).
--
-- Parameters: database (Identifier), tenant ('' = every tenant), now (DateTime64), window_days (UInt32),
-- min_days_fraction (Float64), retire_after_days (UInt32).
WITH
    stats AS
    (
        SELECT
            tenant, code, source,
            uniqExactIf(toDate(time), time >= {now:DateTime64(9)} - toIntervalDay({window_days:UInt32})) AS days_seen,
            countIf(time >= {now:DateTime64(9)} - toIntervalDay({window_days:UInt32})) AS occurrences,
            min(time) AS first_seen,
            max(time) AS last_seen,
            groupUniqArray(5)(tool_name) AS tools,
            groupUniqArray(5)(agent_name) AS agents
        FROM {database:Identifier}.tool_call_warnings
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND time >= {now:DateTime64(9)} - toIntervalDay({window_days:UInt32} + {retire_after_days:UInt32})
          AND time < {now:DateTime64(9)}
        GROUP BY tenant, code, source
    ),
    states AS
    (
        SELECT tenant, code, source, state, due_at, state_changed_at
        FROM {database:Identifier}.warning_states
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
    )
SELECT
    s.tenant AS tenant, toString(s.code) AS code, s.source AS source,
    s.days_seen AS days_seen, s.occurrences AS occurrences, s.first_seen AS first_seen, s.last_seen AS last_seen,
    arrayMap(t -> toString(t), s.tools) AS tools, arrayMap(a -> toString(a), s.agents) AS agents,
    s.days_seen > {min_days_fraction:Float64} * {window_days:UInt32} AS persistent,
    s.last_seen < {now:DateTime64(9)} - toIntervalDay({retire_after_days:UInt32}) AS stale,
    if(st.state = '', 'active', toString(st.state)) AS state,
    st.due_at AS due_at,
    if(st.state = '', NULL, st.state_changed_at) AS state_changed_at
FROM stats AS s
LEFT JOIN states AS st ON st.tenant = s.tenant AND st.code = s.code AND st.source = s.source
ORDER BY tenant, code, source
