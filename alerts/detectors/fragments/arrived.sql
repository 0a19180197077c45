-- Fragment (the CTE `arrived`): the sessions an incremental evaluator run judges. A session is judged again when a
-- read or a mutation of it ARRIVED (was stored) in [{arrived_since}, {arrived_until}), whatever its event time;
-- from_time is the earliest start time it brought, truncated to the millisecond: only the session's mutations that
-- start at or after it can change verdict (a read only counts for the mutations after it).
arrived AS
(
    SELECT tenant, session, toStartOfMillisecond(min(start_time)) AS from_time
    FROM {database:Identifier}.detector_arrivals
    WHERE ({tenant:String} = '' OR tenant = {tenant:String})
      AND ingested_at >= {arrived_since:DateTime64(3)} AND ingested_at < {arrived_until:DateTime64(3)}
    GROUP BY tenant, session
)
