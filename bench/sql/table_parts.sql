-- A table's active parts: rows, bytes on disk, bytes uncompressed, how many parts.
SELECT sum(rows) AS rows, sum(bytes_on_disk) AS bytes, sum(data_uncompressed_bytes) AS raw, count() AS parts
FROM system.parts
WHERE active AND database = {db:String} AND table = {table:String}
