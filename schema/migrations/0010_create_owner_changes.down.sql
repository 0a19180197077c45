DROP VIEW IF EXISTS {{database}}.owners {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.owner_changes {{on_cluster}};
