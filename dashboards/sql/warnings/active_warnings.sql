-- Every warning (tenant, code, source) seen in the range and not retired: how old it is (first occurrence ever),
-- how often and on how many days it showed up in the range, its lifecycle state and its owner.
-- Owner resolution follows alerts/owners/resolve.ts: the owner of the exact code before the owner of every code
-- of the source ('*'), and within each a tenant-specific owner before the every-tenant one ('' tenant).
WITH
    seen AS
    (
        SELECT
            tenant, code, source,
            min(time) AS first_seen,
            max(time) AS last_seen,
            uniqExactIf(toDate(time), $__timeFilter(time)) AS days_seen,
            countIf($__timeFilter(time)) AS occurrences,
            arrayStringConcat(arraySort(groupUniqArray(10)(tool_name)), ', ') AS tools
        FROM tool_call_warnings
        WHERE time <= $__toTime
          AND $__conditionalAll(tenant IN (${tenant:singlequote}), $tenant)
          AND $__conditionalAll(agent_name IN (${agent:singlequote}), $agent)
          AND $__conditionalAll(tool_name IN (${tool:singlequote}), $tool)
        GROUP BY tenant, code, source
        HAVING occurrences > 0
    ),
    owned AS
    (
        SELECT
            s.tenant AS tenant, s.code AS code, s.source AS source,
            argMaxIf(o.owner, (o.subject != '*', o.tenant != ''), o.tenant IN (s.tenant, '') AND o.subject IN (s.code, '*'))
                AS owner
        FROM seen AS s
        LEFT JOIN (SELECT tenant, subject, source, owner FROM owners WHERE subject_kind = 'warning') AS o
            ON o.source = s.source
        GROUP BY s.tenant, s.code, s.source
    )
SELECT
    s.code AS code,
    s.source AS source,
    s.tenant AS tenant,
    if(st.state = '', 'active', st.state) AS state,
    if(w.owner = '', 'UNOWNED', w.owner) AS owner,
    dateDiff('day', s.first_seen, now64(3)) AS age_days,
    s.first_seen AS first_seen,
    s.last_seen AS last_seen,
    s.days_seen AS days_seen,
    s.occurrences AS occurrences,
    s.tools AS tools
FROM seen AS s
LEFT JOIN warning_states AS st ON st.tenant = s.tenant AND st.code = s.code AND st.source = s.source
LEFT JOIN owned AS w ON w.tenant = s.tenant AND w.code = s.code AND w.source = s.source
WHERE st.state != 'retired'
ORDER BY age_days DESC, occurrences DESC, code, source
LIMIT 500
