DROP VIEW IF EXISTS {{database}}.warning_states {{on_cluster}};
DROP TABLE IF EXISTS {{database}}.warning_state_changes {{on_cluster}};
