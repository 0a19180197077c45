-- Detector: arrived_sessions (what an incremental evaluator run judges)
--
-- Rule: a session is judged again when a read or a mutation of it ARRIVED (was stored) in
-- [{arrived_since}, {arrived_until}), whatever its event time; from_time is the earliest start time it brought,
-- truncated to the millisecond: only the session's mutations that start at or after it can change verdict (a
-- read only counts for the mutations after it). The incremental detectors judge exactly those mutations (the same
-- fragment, fragments/arrived.sql, picks them); the evaluator keeps the session's other findings from stored state.
--
-- Parameters: database (Identifier), tenant ('' = every tenant), arrived_since / arrived_until (DateTime64(3)).
WITH
    {{include:arrived}}
SELECT tenant, session, from_time
FROM arrived
ORDER BY tenant, session
