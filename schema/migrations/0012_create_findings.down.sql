DROP TABLE IF EXISTS {{database}}.findings {{on_cluster}};
