-- Spans stored by the ingest: tool calls and the other spans.
SELECT (SELECT count() FROM {db:Identifier}.tool_calls) + (SELECT count() FROM {db:Identifier}.spans) AS n
