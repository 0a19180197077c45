-- The configured database, before any migration (DDL: placeholders filled from validated configuration, renderSql).
CREATE DATABASE IF NOT EXISTS {{database}} {{on_cluster}}
