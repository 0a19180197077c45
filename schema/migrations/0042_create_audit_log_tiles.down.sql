DROP TABLE IF EXISTS {{database}}.audit_log_tiles {{on_cluster}};
