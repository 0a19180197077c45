-- Detector: persistent_unowned_warning (the facts; alerts/warnings/lifecycle.ts applies owners and states)
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
-- (`active` when it never changed state). Reads the daily rollup warning_days (see `days` below), not every
-- occurrence: the same rows as counting the raw table (test/integration/alerts/warning-days.test.ts).
--
-- Parameters: database (Identifier), tenant ('' = every tenant), now (DateTime64), window_days (UInt32),
-- min_days_fraction (Float64), retire_after_days (UInt32).
WITH
    -- One row per (warning, day) of the lookback. Whole days come from the daily rollup (warning_days, migration
    -- 0019); only the days the range's edges cut (the lookback's first day, the window's first day, today) are
    -- read from tool_call_warnings, so the counts stay exact at the edges while the 90 days cost ~1 row per day.
    days AS
    (
        SELECT
            tenant, code, source, day,
            day > toDate({now:DateTime64(9)} - toIntervalDay({window_days:UInt32}), 'UTC') AS in_window,
            if(in_window, sum(occurrences), 0) AS window_occurrences,
            min(first_seen) AS day_first_seen, max(last_seen) AS day_last_seen,
            groupUniqArrayMergeState(5)(tools) AS day_tools, groupUniqArrayMergeState(5)(agents) AS day_agents
        FROM {database:Identifier}.warning_days
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND day > toDate({now:DateTime64(9)} - toIntervalDay({window_days:UInt32} + {retire_after_days:UInt32}), 'UTC')
          AND day != toDate({now:DateTime64(9)} - toIntervalDay({window_days:UInt32}), 'UTC')
          AND day < toDate({now:DateTime64(9)}, 'UTC')
        GROUP BY tenant, code, source, day
        UNION ALL
        SELECT
            tenant, code, source, toDate(time) AS day,
            countIf(time >= {now:DateTime64(9)} - toIntervalDay({window_days:UInt32})) > 0 AS in_window,
            countIf(time >= {now:DateTime64(9)} - toIntervalDay({window_days:UInt32})) AS window_occurrences,
            min(time) AS day_first_seen, max(time) AS day_last_seen,
            groupUniqArrayState(5)(toString(tool_name)) AS day_tools,
            groupUniqArrayState(5)(toString(agent_name)) AS day_agents
        FROM {database:Identifier}.tool_call_warnings
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND time >= {now:DateTime64(9)} - toIntervalDay({window_days:UInt32} + {retire_after_days:UInt32})
          AND time < {now:DateTime64(9)}
          AND toDate(time) IN (
              toDate({now:DateTime64(9)} - toIntervalDay({window_days:UInt32} + {retire_after_days:UInt32}), 'UTC'),
              toDate({now:DateTime64(9)} - toIntervalDay({window_days:UInt32}), 'UTC'),
              toDate({now:DateTime64(9)}, 'UTC'))
        GROUP BY tenant, code, source, day
    ),
    stats AS
    (
        SELECT
            tenant, code, source,
            countIf(in_window) AS days_seen,
            sum(window_occurrences) AS occurrences,
            min(day_first_seen) AS first_seen,
            max(day_last_seen) AS last_seen,
            groupUniqArrayMerge(5)(day_tools) AS tools,
            groupUniqArrayMerge(5)(day_agents) AS agents
        FROM days
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
