-- Detector: dangerous_empty_reads
--
-- Rule: per tenant, read tool and incomplete reason over [since, until): how many reads came back incomplete AND
-- empty (tooltrail.result.complete false or absent, item_count = 0: the result that persuades an agent a problem
-- does not exist), and their rate among all reads of that tool. Reported when that count >= {min_count} and the
-- rate >= {min_rate}; a dashboard passes 0 and 0 to see every tool and reason with at least one such read.
-- A read with several reasons counts once under each; a read that said nothing about completeness counts under
-- COMPLETENESS_UNKNOWN; a read that said `complete: false` without any reason code counts under '' (the emitter
-- broke the contract).
--
-- Reads the per-minute rollup read_minutes (migration 0040) for the whole minutes of the range, and tool_calls only
-- for the parts of the two minutes its edges cut: the same rows as counting every read
-- (test/integration/alerts/read-minutes.test.ts compares it with the raw-table query of before).
--
-- Parameters: database (Identifier), tenant ('' = every tenant), since/until (read start time range),
-- min_count (UInt32), min_rate (Float64, 0..1).
WITH
    -- [whole_from, whole_to): the whole minutes inside [since, until) (empty when whole_from >= whole_to).
    toDateTime64({since:DateTime64(9)}, 9, 'UTC') AS range_from,
    toDateTime64({until:DateTime64(9)}, 9, 'UTC') AS range_to,
    toStartOfMinute(range_from) AS from_minute,
    if(from_minute = range_from, range_from, from_minute + toIntervalMinute(1)) AS whole_from,
    toStartOfMinute(range_to) AS whole_to,
    -- Per (tenant, tool): reads, and incomplete empty reads per reason as (reasons, counts), from both sources.
    counts AS
    (
        SELECT tenant, tool_name, sum(reads) AS total_reads, sumMap(incomplete_empty) AS empties
        FROM {database:Identifier}.read_minutes
        WHERE ({tenant:String} = '' OR tenant = {tenant:String})
          AND minute >= whole_from AND minute < whole_to
        GROUP BY tenant, tool_name
        UNION ALL
        SELECT
            tenant, tool_name, count() AS total_reads,
            sumMap(if(incomplete_empty, reasons, []), if(incomplete_empty, arrayMap(r -> toUInt64(1), reasons), []))
                AS empties
        FROM
        (
            SELECT
                tenant, tool_name,
                NOT result_complete AND ifNull(result_item_count = 0, false) AS incomplete_empty,
                arrayMap(r -> toString(r), if(complete_reported, result_reasons,
                                              arrayConcat(['COMPLETENESS_UNKNOWN'], result_reasons))) AS said,
                if(empty(said), [''], said) AS reasons
            FROM {database:Identifier}.tool_calls
            WHERE effect = 'read'
              AND ({tenant:String} = '' OR tenant = {tenant:String})
              AND start_time >= range_from AND start_time < range_to
              AND (start_time < whole_from OR start_time >= whole_to)
        )
        GROUP BY tenant, tool_name
    ),
    totals AS
    (
        SELECT tenant, tool_name, sum(total_reads) AS total_reads, sumMap(empties) AS empties
        FROM counts
        GROUP BY tenant, tool_name
    )
SELECT
    'dangerous_empty_reads' AS kind,
    t.tenant AS tenant, t.tool_name AS tool_name, reason,
    incomplete_empty_reads, t.total_reads AS total_reads,
    incomplete_empty_reads / t.total_reads AS rate
FROM totals AS t
ARRAY JOIN t.empties.1 AS reason, t.empties.2 AS incomplete_empty_reads
WHERE incomplete_empty_reads >= {min_count:UInt32} AND rate >= {min_rate:Float64}
ORDER BY tenant, rate DESC, tool_name, reason
