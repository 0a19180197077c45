-- Distinct span ids of a table (the OTel exporter may store a retried batch twice).
SELECT uniqExact(SpanId) AS n FROM {db:Identifier}.{table:Identifier}
