-- Fragment (an aggregate expression; each group is the pages of one traversal as one mutation sees them): whether
-- they make a complete read before it. A traversal is one read, or the pages a session read cursor after cursor
-- (semconv 1.5.0, alerts/README.md "Cursor traversals"); among the rows of the window (t_in), it is complete when its
-- first page is there (t_first), no position is missing (t_pos, from 1), no page broke it (t_broken: a break an
-- emitter recorded, or an expired cursor), every page that declared a snapshot declared the same one (t_snapshot),
-- and its last page (highest position, then latest) said complete (t_complete; ordered by t_start, t_seq).
(countIf(t_in AND t_first) > 0
    AND maxIf(t_pos, t_in) = uniqExactIf(t_pos, t_in)
    AND countIf(t_in AND t_broken) = 0
    AND uniqExactIf(t_snapshot, t_in AND t_snapshot != '') <= 1
    AND argMaxIf(t_complete, (t_pos, t_start, t_seq), t_in))
