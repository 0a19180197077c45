DROP TABLE IF EXISTS {{database}}.tool_call_warnings {{on_cluster}};
