-- Each applied version with the checksum of the .up.sql it ran (a changed file is refused: migrations.ts).
SELECT version, argMax(checksum, applied_at) AS checksum
FROM {db:Identifier}.schema_migrations FINAL
GROUP BY version
