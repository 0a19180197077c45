-- Every part merged, so that the bytes on disk are the table's and not its merge backlog's.
OPTIMIZE TABLE {db:Identifier}.{table:Identifier} FINAL
