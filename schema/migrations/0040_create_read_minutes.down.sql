DROP VIEW IF EXISTS {{database}}.read_minutes_mv {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.read_minutes {{on_cluster}};
