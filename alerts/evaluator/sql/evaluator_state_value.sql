-- One watermark of one evaluator (evaluator_state, ReplacingMergeTree: the newest version wins under FINAL).
SELECT value
FROM {db:Identifier}.evaluator_state FINAL
WHERE evaluator = {evaluator:String} AND key = {key:String}
