-- An alert finding (alerts' `findings` table, migration 0012) by fingerprint: the session or trace to reconstruct.
-- The table is a ReplacingMergeTree(version): the newest version of the finding wins.
SELECT fingerprint, kind, tenant, session_id, trace_id, mutation_span_id, summary
FROM {db:Identifier}.findings
WHERE fingerprint = {fingerprint:String}
ORDER BY version DESC
LIMIT 1
