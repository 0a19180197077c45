DROP TABLE IF EXISTS {{database}}.spans {{on_cluster}};
