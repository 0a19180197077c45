-- Rows of one table.
SELECT count() AS n FROM {db:Identifier}.{table:Identifier}
