-- Fragment (a boolean expression over a read r and a mutation m): the read is about what the mutation acts on: the
-- same tooltrail.scope.resource, or evidence the mutation names (a snapshot, the read's call id). A page of a cursor
-- traversal is also named by its traversal's id (its first page's call id): the detectors add that clause for pages.
((r.scope_resource != '' AND r.scope_resource = m.scope_resource)
    OR (r.scope_snapshot != '' AND has(m.evidence_snapshots, r.scope_snapshot))
    OR (r.tool_call_id != '' AND has(m.evidence_call_ids, r.tool_call_id)))
