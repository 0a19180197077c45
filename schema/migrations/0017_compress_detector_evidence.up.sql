-- detector_complete_evidence is the largest detector table (~1.7 rows per tool call: a complete read's snapshot and
-- call id) and mutation_after_incomplete_read reads all of it over its range. Within a part, start_time rises per
-- tenant and seq is a small per-session counter: Delta / T64 ahead of LZ4 store them in ~6 + ~5 MB instead of
-- ~78 + ~48 MB per 17M rows, and decode faster (bench/detector-evaluation.ts data: scanning the table -25% CPU,
-- the full-range detector ~-6% CPU).
-- Only the codec changes: parts written before keep theirs until a merge rewrites them (OPTIMIZE ... FINAL forces it).
ALTER TABLE {{database}}.detector_complete_evidence {{on_cluster}}
    MODIFY COLUMN start_time CODEC(Delta, LZ4),
    MODIFY COLUMN seq CODEC(T64, LZ4);
