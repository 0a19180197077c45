DROP TABLE IF EXISTS {{database}}.audit_deletions {{on_cluster}};
