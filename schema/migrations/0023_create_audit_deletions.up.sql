-- Deletions by policy (audit/README.md, "Retention"): a tenant's deletion request, recorded before its rows are
-- deleted, so that `tooltrail verify` reports the hours it erased as "expired by policy at T" (who asked, when, why)
-- instead of as rows deleted. The record is also a signed note (Ed25519, the checkpoint key) when the deleting
-- process holds that key: with trusted keys given, verify honours only records whose signature and text agree,
-- so someone who can write to the database cannot excuse a deletion by inserting a row here.
-- range_from/range_to: whole hours of the rows' own time (start_time, time, Timestamp), to exclusive.
-- No TTL: a record outlives the rows it erased (it says why they are gone).
CREATE TABLE IF NOT EXISTS {{database}}.audit_deletions {{on_cluster}}
(
    tenant        LowCardinality(String),
    deletion_id   String COMMENT 'random UUID of the request',
    range_from    DateTime('UTC') COMMENT 'first hour erased',
    range_to      DateTime('UTC') COMMENT 'end of the range, exclusive (a whole hour)',
    requested_by  String COMMENT 'who asked (the operator or the tenant contact)',
    reason        String COMMENT 'why, e.g. the ticket of the request',
    recorded_at   DateTime64(3, 'UTC') COMMENT 'when it was recorded; the rows were deleted after it',
    key_id        String COMMENT 'the signing key''s 4-byte id, hex; empty when unsigned',
    note          String COMMENT 'the request as a C2SP signed note; empty when unsigned'
)
ENGINE = {{engine}}
ORDER BY (tenant, range_from, deletion_id)
