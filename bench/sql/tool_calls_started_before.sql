-- Rows of tool_calls that started before {before}: a generated history, without the batches added since.
SELECT count() AS n FROM {db:Identifier}.tool_calls WHERE start_time < {before:DateTime64(3)}
