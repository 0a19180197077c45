DROP VIEW IF EXISTS {{database}}.warning_days_mv {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.warning_days {{on_cluster}};
