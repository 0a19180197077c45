-- Fragment (select items): what a finding says of the incomplete reads r grouped under its mutation: their spans,
-- traces and tools, their reasons (COMPLETENESS_UNKNOWN for a read that said nothing), and whether one came back
-- empty (the dangerous case).
groupArray(r.span_id) AS read_span_ids,
groupArray(r.trace_id) AS read_trace_ids,
groupArray(r.tool_name) AS read_tool_names,
arrayDistinct(arrayFlatten(groupArray(
    if(r.complete_reported, r.result_reasons, arrayConcat(['COMPLETENESS_UNKNOWN'], r.result_reasons)))))
    AS reasons,
max(ifNull(r.result_item_count = 0, false)) AS incomplete_empty
