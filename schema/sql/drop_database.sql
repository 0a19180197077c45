-- The whole database and every table in it: a demo's fresh start, a test's or a bench's throwaway database.
DROP DATABASE IF EXISTS {db:Identifier}
