-- Signed checkpoints of the Merkle log (C2SP tlog-checkpoint in a C2SP signed note, Ed25519): the writer signs one
-- every N seconds or M leaves and also hands it to its witnesses, which is what makes a later rewrite of the tree
-- visible: a rebuilt tree is not consistent with a checkpoint published before it.
CREATE TABLE IF NOT EXISTS {{database}}.audit_checkpoints {{on_cluster}}
(
    tenant        LowCardinality(String),
    log           LowCardinality(String),
    tree_size     UInt64,
    root_hash     String COMMENT 'SHA-256 hex of the tree of tree_size leaves',
    key_name      String COMMENT 'the signing key''s name',
    key_id        String COMMENT 'the signing key''s 4-byte id, hex (C2SP key id)',
    note          String COMMENT 'the signed note as published',
    published_at  DateTime64(3, 'UTC')
)
ENGINE = {{engine}}
ORDER BY (tenant, log, tree_size, published_at)
