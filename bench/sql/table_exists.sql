-- 1 when the table exists (asking first spares a failed query in the server's log).
SELECT count() AS n FROM system.tables WHERE database = {db:String} AND name = {table:String}
