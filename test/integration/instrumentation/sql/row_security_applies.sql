-- Whether row-level security filters what the current role sees of a table: what the caller tells the adapter.
SELECT c.relrowsecurity AND NOT r.rolbypassrls AND NOT r.rolsuper AS applies
FROM pg_class c, pg_roles r
WHERE c.oid = $1::regclass AND r.rolname = current_user
