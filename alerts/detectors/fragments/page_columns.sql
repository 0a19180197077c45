-- Fragment (select items over detector_incomplete_reads or arrived_incomplete_reads, aliased `r`): a page's part in
-- its traversal, as fragments/traversal_complete.sql reads it.
r.traversal_first AS t_first,
greatest(r.traversal_page, 1) AS t_pos,
r.traversal_break != '' OR has(r.result_reasons, 'CURSOR_EXPIRED') AS t_broken,
r.scope_snapshot AS t_snapshot,
r.result_complete AS t_complete,
r.start_time AS t_start,
r.seq AS t_seq
