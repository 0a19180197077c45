DROP VIEW IF EXISTS {{database}}.detector_complete_reads_mv {{on_cluster}};
DROP VIEW IF EXISTS {{database}}.detector_arrivals_mv {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.detector_complete_reads {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.detector_arrivals {{on_cluster}};
