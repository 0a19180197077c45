-- Merges running in a database, or in every database when db is '' (a bench waits for none before it times).
SELECT count() AS n FROM system.merges WHERE {db:String} = '' OR database = {db:String}
