-- Fragment (select items over tool_calls): a read's cursor traversal, from the attributes a page carries (semconv
-- 1.5.0), as migration 0041's materialized view stores them in detector_incomplete_reads: its key (the traversal id,
-- else the read's own call id, else its span id), its position (0 when absent), the break it recorded, whether an
-- emitter linked it to a traversal at all (else it is judged alone), and whether it is the first page of its own.
if(attributes['tooltrail.traversal.id'] = '', if(tool_call_id = '', span_id, tool_call_id),
   attributes['tooltrail.traversal.id']) AS traversal_key,
toUInt64OrZero(attributes['tooltrail.traversal.page']) AS traversal_page,
attributes['tooltrail.traversal.break'] AS traversal_break,
if(attributes['tooltrail.traversal.id'] != '' OR traversal_break != '', cityHash64(traversal_key), 0) AS traversal_hash,
traversal_break = '' AND traversal_page <= 1 AND attributes['tooltrail.traversal.id'] IN ('', tool_call_id)
    AS traversal_first
