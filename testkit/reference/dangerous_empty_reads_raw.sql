-- Reference for the rollup test (test/integration/alerts/read-minutes.test.ts) and bench/detector-growth.ts:
-- dangerous_empty_reads as it was before the per-minute rollup (migration 0040), counting every read of the window
-- in tool_calls. The detector must return the same rows.
--
-- Rule: per tenant, read tool and incomplete reason over [since, until): how many reads came back incomplete AND
-- empty (tooltrail.result.complete false or absent, item_count = 0: the result that persuades an agent a problem
-- does not exist), and their rate among all reads of that tool. Reported when that count >= {min_count} and the
-- rate >= {min_rate}; a dashboard passes 0 and 0 to see every tool and reason with at least one such read.
-- A read with several reasons counts once under each; a read that said nothing about completeness counts under
-- COMPLETENESS_UNKNOWN; a read that said `complete: false` without any reason code counts under '' (the emitter
-- broke the contract).
--
-- Parameters: database (Identifier), tenant ('' = every tenant), since/until (read start time range),
-- min_count (UInt32), min_rate (Float64, 0..1).
WITH
    reads AS
    (
        SELECT
            tenant, tool_name,
            NOT result_complete AND ifNull(result_item_count = 0, false) AS incomplete_empty,
            if(complete_reported, result_reasons, arrayConcat(['COMPLETENESS_UNKNOWN'], result_reasons)) AS reasons
        FROM {database:Identifier}.tool_calls
        WHERE effect = 'read'
          AND ({tenant:String} = '' OR tenant = {tenant:String})
          AND start_time >= {since:DateTime64(9)} AND start_time < {until:DateTime64(9)}
    ),
    totals AS
    (
        SELECT tenant, tool_name, count() AS total_reads FROM reads GROUP BY tenant, tool_name
    ),
    dangerous AS
    (
        SELECT tenant, tool_name, reason, count() AS incomplete_empty_reads
        FROM reads
        ARRAY JOIN if(empty(reasons), [''], reasons) AS reason
        WHERE incomplete_empty
        GROUP BY tenant, tool_name, reason
    )
SELECT
    'dangerous_empty_reads' AS kind,
    d.tenant AS tenant, d.tool_name AS tool_name, toString(d.reason) AS reason,
    d.incomplete_empty_reads AS incomplete_empty_reads, t.total_reads AS total_reads,
    d.incomplete_empty_reads / t.total_reads AS rate
FROM dangerous AS d
INNER JOIN totals AS t ON t.tenant = d.tenant AND t.tool_name = d.tool_name
WHERE d.incomplete_empty_reads >= {min_count:UInt32} AND rate >= {min_rate:Float64}
ORDER BY tenant, rate DESC, tool_name, reason
