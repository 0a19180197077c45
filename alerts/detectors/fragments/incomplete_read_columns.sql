-- Fragment (select items): what a finding says of the incomplete reads r grouped under its mutation: their spans,
-- traces and tools, their reasons (COMPLETENESS_UNKNOWN for a read that said nothing; a page's traversal break, e.g.
-- SNAPSHOT_CHANGED, beside them), and whether one came back incomplete and empty (the dangerous case).
groupArray(r.span_id) AS read_span_ids,
groupArray(r.trace_id) AS read_trace_ids,
groupArray(r.tool_name) AS read_tool_names,
arrayDistinct(arrayFlatten(groupArray(arrayConcat(
    if(r.complete_reported, r.result_reasons, arrayConcat(['COMPLETENESS_UNKNOWN'], r.result_reasons)),
    if(r.traversal_break = '', [], [r.traversal_break])))))
    AS reasons,
max(toUInt8(ifNull(r.result_item_count = 0, false) AND NOT r.result_complete)) AS incomplete_empty
