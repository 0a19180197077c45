import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { countsOf } from '../../../audit/digest-source.ts';
import { createDigestRecorder, type DigestRecorder, type DigestSource } from '../../../audit/recorder.ts';
import { verifyDigests } from '../../../audit/verify.ts';
import { startIngest } from '../../../ingest/service.ts';
import type { ClickHouseClient } from '../../../platform/clickhouse.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { createHarness, type Harness } from '../ingest/harness.ts';

let h: Harness;
before(async () => {
  h = await createHarness('audit_kafka');
});
after(async () => {
  await h?.close();
});

const HOUR = 3_600_000;

describe('digests of the Kafka ingest, hashed from the Native blocks it inserted', () => {
  it('verify finds every row the consumer stored covered by a digest, hashed by the worker from the inserted blocks', async () => {
    const startMs = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR + 60_000;
    const messages = Array.from({ length: 40 }, (_, i) =>
      syntheticMessage({
        // '' = no tenant attribute: the default tenant (a flatten option the worker must apply too).
        tenant: i % 4 === 0 ? '' : 'acme',
        toolSpans: 5 + (i % 3),
        seed: 5000 + i,
        startMs: startMs + i * 1000,
        warningEvery: 2,
      }),
    );
    messages.push(Buffer.from('not protobuf \xff\xff\xff', 'latin1'));
    await h.produce(messages);
    const kinds: DigestSource['kind'][] = [];
    const fromWorker: boolean[] = [];
    const spy = (ch: ClickHouseClient): DigestRecorder => {
      const rec = createDigestRecorder(ch, { database: h.db.database, chain: 'kafka-a', offload: true });
      return {
        async record(stored, batch) {
          // The worker's entries are used only when they cover exactly these rows (else recomputed here).
          const got = await batch?.prepared;
          fromWorker.push(got !== undefined && JSON.stringify(got.counts) === JSON.stringify(countsOf(stored)));
          return rec.record(stored, batch);
        },
        prepare(source) {
          kinds.push(source.kind);
          return rec.prepare!(source);
        },
      };
    };
    const ingest = await startIngest(h.config({ maxRows: 60, defaultTenant: 'dflt' }), {
      log: () => {},
      batchStored: spy,
    });
    const db = h.db.database;
    const toolCalls = messages.slice(0, 40).reduce((n, _, i) => n + 5 + (i % 3), 0);
    try {
      assert.equal(await h.waitForCount(`SELECT count() AS n FROM ${db}.tool_calls`, toolCalls, 60_000), toolCalls);
      // Rows are logged before each commit: wait until the log covers every tool call.
      const covered = `SELECT sum(width) AS n FROM ${db}.audit_log_tiles WHERE kind = 'entries' AND row_table = 'tool_calls'`;
      assert.equal(await h.waitForCount(covered, toolCalls, 30_000), toolCalls);
    } finally {
      await ingest.stop();
    }
    assert.ok(kinds.length >= 2, `several batches (${kinds.length})`);
    assert.ok(
      kinds.every((k) => k === 'native'),
      `every batch offered the Native blocks it inserted: ${kinds.join(',')}`,
    );
    assert.ok(
      fromWorker.length === kinds.length && fromWorker.every(Boolean),
      'the worker hashed exactly the rows of every batch',
    );
    for (const tenant of ['acme', 'dflt']) {
      const r = await verifyDigests(h.db.ch, h.db.schema, {
        tenant,
        from: new Date(startMs - HOUR),
        to: new Date(startMs + 2 * HOUR),
      });
      assert.deepEqual(r.issues, [], `tenant ${tenant}`);
      assert.equal(r.ok, true);
      assert.ok(r.checked.rows > 0);
    }
  });
});
