DROP TABLE IF EXISTS {{database}}.tool_calls {{on_cluster}};
