-- Merges running in a database (a bench waits for none before it times queries).
SELECT count() AS n FROM system.merges WHERE database = {db:String}
