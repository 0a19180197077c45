/**
 * The insert-time tables of mutation_after_incomplete_read (migration 0014) hold exactly what tool_calls holds:
 * a batch the writer retries with the same deduplication token must not double their rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { flatten } from '../../../ingest/flatten.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { syntheticRequest } from '../../../testkit/ingest.ts';
import { freshDatabase, type TestDatabase } from '../../../testkit/services.ts';

let db: TestDatabase;
before(async () => {
  db = await freshDatabase('tt_detector_tables');
});
after(async () => {
  await db.drop();
});

/** Rows of each detector table, and what the same rule finds in tool_calls itself. */
interface Counts {
  mutations: number;
  expected_mutations: number;
  incomplete_reads: number;
  expected_incomplete_reads: number;
  evidence: number;
  expected_evidence: number;
}

async function counts(): Promise<Counts> {
  const rs = await db.ch.query({
    query: `SELECT
        (SELECT count() FROM {db:Identifier}.detector_mutations) AS mutations,
        (SELECT countIf(effect = 'mutation') FROM {db:Identifier}.tool_calls) AS expected_mutations,
        (SELECT count() FROM {db:Identifier}.detector_incomplete_reads) AS incomplete_reads,
        (SELECT countIf(effect = 'read' AND NOT result_complete) FROM {db:Identifier}.tool_calls) AS expected_incomplete_reads,
        (SELECT count() FROM {db:Identifier}.detector_complete_evidence) AS evidence,
        (SELECT sumIf((scope_snapshot != '') + (tool_call_id != ''), effect = 'read' AND result_complete)
           FROM {db:Identifier}.tool_calls) AS expected_evidence`,
    query_params: { db: db.database },
    format: 'JSONEachRow',
  });
  const [row] = await rs.json<Record<string, string>>();
  if (!row) throw new Error('no counts row');
  return Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])) as unknown as Counts;
}

describe('detector tables (migration 0014)', () => {
  it('keeps one copy of a batch retried with the same deduplication token, as tool_calls does', async () => {
    const writer = createClickHouseWriter(db.ch, { database: db.database });
    const rows = flatten(syntheticRequest({ tenant: 't1', toolSpans: 40, seed: 11, startMs: Date.now() - 60_000 }));
    for (let i = 0; i < 3; i++) await writer.writeRows(rows, { dedupToken: 'batch-1' });
    const once = await counts();
    assert.ok(once.mutations > 0 && once.incomplete_reads > 0 && once.evidence > 0, JSON.stringify(once));
    assert.equal(once.mutations, once.expected_mutations);
    assert.equal(once.incomplete_reads, once.expected_incomplete_reads);
    assert.equal(once.evidence, once.expected_evidence);

    // A different token is a different batch: both tool_calls and the detector tables store it again.
    await writer.writeRows(rows, { dedupToken: 'batch-2' });
    const twice = await counts();
    assert.equal(twice.mutations, 2 * once.mutations);
    assert.equal(twice.mutations, twice.expected_mutations);
    assert.equal(twice.incomplete_reads, twice.expected_incomplete_reads);
    assert.equal(twice.evidence, twice.expected_evidence);
  });
});
