-- Random ids are the heaviest columns of tool_calls: LZ4 finds nothing to match in lowercase hex, so a 16-char
-- span id took ~16 B per row (bench/anchor: tool_call_id 19.1, span_id 16.1, parent_span_id 16.1 B/span, while the
-- OpenTelemetry exporter's otel_traces keeps SpanId at 8.1 B with ZSTD). ZSTD's entropy coding stores hex at close
-- to its 4 bits per character (bench/anchor, same spans: 84.9 -> 53.5 B/span, 1.20x -> 0.76x otel_traces).
-- start/end times rise within a session (the sort order): Delta first. Durations are small integers: T64 first;
-- the nullable counters get ZSTD alone.
-- Only the codecs change: parts written before keep theirs until a merge rewrites them (OPTIMIZE ... FINAL forces it).
ALTER TABLE {{database}}.tool_calls {{on_cluster}}
    MODIFY COLUMN trace_id CODEC(ZSTD(1)),
    MODIFY COLUMN span_id CODEC(ZSTD(1)),
    MODIFY COLUMN parent_span_id CODEC(ZSTD(1)),
    MODIFY COLUMN tool_call_id CODEC(ZSTD(1)),
    MODIFY COLUMN start_time CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN end_time CODEC(Delta, ZSTD(1)),
    MODIFY COLUMN duration_ns CODEC(T64, ZSTD(1)),
    MODIFY COLUMN sequence CODEC(ZSTD(1)),
    MODIFY COLUMN result_item_count CODEC(ZSTD(1));
