-- Service accounts of two tenants; a row-level security policy shows a reader only its tenant's rows.
CREATE TABLE service_accounts (
  id integer PRIMARY KEY,
  tenant text NOT NULL,
  owner text
);
INSERT INTO service_accounts (id, tenant, owner)
SELECT n, CASE WHEN n % 5 = 0 THEN 'globex' ELSE 'acme' END, CASE WHEN n % 2 = 0 THEN 'team-' || n END
FROM generate_series(1, 50) AS n;
CREATE TABLE audit_secrets (id integer PRIMARY KEY);
ALTER TABLE service_accounts ENABLE ROW LEVEL SECURITY;
CREATE POLICY tenant_isolation ON service_accounts USING (tenant = current_setting('app.tenant', true));
DO $$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'tooltrail_rls_reader') THEN
    CREATE ROLE tooltrail_rls_reader NOLOGIN NOSUPERUSER NOBYPASSRLS;
  END IF;
END $$;
GRANT SELECT ON service_accounts TO tooltrail_rls_reader;
