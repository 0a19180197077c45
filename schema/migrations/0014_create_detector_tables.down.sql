DROP VIEW IF EXISTS {{database}}.detector_complete_evidence_mv {{on_cluster}};
DROP VIEW IF EXISTS {{database}}.detector_incomplete_reads_mv {{on_cluster}};
DROP VIEW IF EXISTS {{database}}.detector_mutations_mv {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.detector_complete_evidence {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.detector_incomplete_reads {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.detector_mutations {{on_cluster}};
