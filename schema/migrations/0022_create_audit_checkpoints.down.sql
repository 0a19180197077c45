DROP TABLE IF EXISTS {{database}}.audit_checkpoints {{on_cluster}};
