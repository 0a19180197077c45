-- Fragment (a boolean expression over a read r and a mutation m): the read is about what the mutation acts on: the
-- same tooltrail.scope.resource, or evidence the mutation names (a snapshot, the read's call id, or its traversal's
-- id: a mutation names a traversal by its first page's call id).
((r.scope_resource != '' AND r.scope_resource = m.scope_resource)
    OR (r.scope_snapshot != '' AND has(m.evidence_snapshots, r.scope_snapshot))
    OR (r.tool_call_id != '' AND has(m.evidence_call_ids, r.tool_call_id))
    OR (r.traversal_key != '' AND has(m.evidence_call_ids, r.traversal_key)))
