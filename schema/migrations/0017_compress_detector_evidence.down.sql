ALTER TABLE {{database}}.detector_complete_evidence {{on_cluster}}
    MODIFY COLUMN start_time CODEC(Default),
    MODIFY COLUMN seq CODEC(Default);
