-- A scan slower than any statement_timeout the test sets.
SELECT id FROM service_accounts, pg_sleep(5) WHERE owner IS NULL
