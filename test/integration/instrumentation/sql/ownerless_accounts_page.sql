-- One page of accounts without an owner, keyset-paginated; $2 is the page size plus one (the probe row).
SELECT id, tenant FROM service_accounts WHERE owner IS NULL AND id > $1 ORDER BY id LIMIT $2
