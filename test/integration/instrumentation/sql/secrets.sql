SELECT id FROM audit_secrets
