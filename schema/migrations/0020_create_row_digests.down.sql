DROP TABLE IF EXISTS {{database}}.row_digests {{on_cluster}};
