DROP TABLE IF EXISTS {{database}}.evaluator_state {{on_cluster}};
