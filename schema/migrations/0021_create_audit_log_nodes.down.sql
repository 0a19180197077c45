DROP TABLE IF EXISTS {{database}}.audit_log_nodes {{on_cluster}};
