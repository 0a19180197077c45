-- Where a table's bytes go: its heaviest columns, compressed.
SELECT name, data_compressed_bytes AS b
FROM system.columns
WHERE database = {db:String} AND table = {table:String}
ORDER BY b DESC
LIMIT 8
