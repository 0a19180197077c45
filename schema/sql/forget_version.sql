-- A reverted migration: no longer recorded as applied.
ALTER TABLE {db:Identifier}.schema_migrations DELETE WHERE version = {v:UInt32}
