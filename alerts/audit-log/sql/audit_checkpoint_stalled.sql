-- Rule: a tenant's Merkle log stopped checkpointing while its rows kept arriving. Rows were stored in the last
-- {stall_seconds} (tool_calls.ingested_at, ClickHouse's time of insert) and the tenant's newest signed checkpoint,
-- over all its logs, is older than that: the writer signs at the first batch once TOOLTRAIL_CHECKPOINT_EVERY_SECONDS
-- have passed, so with rows arriving a checkpoint that old means signing or storing it fails (a lost key, a
-- refused insert, a log switched off). Only tenants checkpointed at least once: a writer without a key never pages.
-- A quiet tenant (nothing stored for stall_seconds) is not stalled, however old its checkpoint.
SELECT
    cp.tenant AS tenant,
    cp.log AS log,
    toString(cp.size) AS checkpoint_size,
    toString(toUnixTimestamp64Milli(cp.published)) AS published_ms,
    toString(toUnixTimestamp64Milli(recent.last_arrival)) AS last_arrival_ms,
    recent.arrived AS rows_arrived
FROM
(
    SELECT tenant, argMax(log, published_at) AS log, argMax(tree_size, published_at) AS size, max(published_at) AS published
    FROM {database:Identifier}.audit_checkpoints
    WHERE ({tenant:String} = '' OR tenant = {tenant:String})
    GROUP BY tenant
) AS cp
INNER JOIN
(
    SELECT tenant, max(ingested_at) AS last_arrival, count() AS arrived
    FROM {database:Identifier}.tool_calls
    WHERE ingested_at >= {now:DateTime64(3)} - toIntervalSecond({stall_seconds:UInt32})
      AND ({tenant:String} = '' OR tenant = {tenant:String})
    GROUP BY tenant
) AS recent ON recent.tenant = cp.tenant
WHERE cp.published < {now:DateTime64(3)} - toIntervalSecond({stall_seconds:UInt32})
ORDER BY tenant
