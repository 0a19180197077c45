/**
 * Two live ingest members in one consumer group on a 3-partition topic, against the real Kafka and ClickHouse: a
 * second member joins while the first is storing a steady stream, and later leaves; every message is stored exactly
 * once, and the partitions were split between the two (each member's assignment as its own group join reported it).
 * A consumer that commits past what it stored loses the messages in between at the next join: this test fails then.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningIngest, startIngest } from '../../../ingest/service.ts';
import { fetchConsumerLag, KAFKA_CLIENTS } from '../../../platform/kafka/index.ts';
import { metricValue } from '../../../platform/metrics/index.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { sleep, until } from '../../../testkit/wait.ts';
import { createHarness, type Harness, PARTITIONS } from './harness.ts';

const TOOL_SPANS = 4;
const WAIT = { timeoutMs: 60_000, everyMs: 100 };

/** A member's log, and the partitions of its latest group join (`group join (leader): partitions 0,2`). */
class Member {
  readonly lines: string[] = [];
  joins = 0;
  assigned: number[] = [];
  ingest: RunningIngest | undefined;
  log = (line: string) => {
    this.lines.push(line);
    const m = /^group join(?: \(leader\))?: partitions (.*)$/.exec(line);
    if (!m) return;
    this.joins++;
    this.assigned = m[1] === 'none' ? [] : (m[1] as string).split(',').map(Number);
  };
}

for (const client of KAFKA_CLIENTS)
  describe(`ingest group rebalance with two live members (real Kafka, real ClickHouse, ${client})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness('rebalance', { client });
    });
    after(async () => {
      await h?.close();
    });

    it('stores every message exactly once while a second member joins and leaves mid-stream, the partitions split between them', async () => {
      const db = h.db.database;
      let produced = 0;
      let producing = true;
      // A steady stream (10 messages every 100 ms over the 3 partitions), so batches are in flight at each join.
      const stream = (async () => {
        for (let seed = 500_000; producing; seed += 10) {
          await h.produce(
            Array.from({ length: 10 }, (_, i) =>
              syntheticMessage({ tenant: 'rebalance', toolSpans: TOOL_SPANS, seed: seed + i }),
            ),
          );
          produced += 10;
          await sleep(100); // the stream's pace
        }
      })();
      const a = new Member();
      const b = new Member();
      const stored = (m: Member) =>
        m.ingest ? metricValue(m.ingest.metrics.rowsWritten, { table: 'tool_calls' }) : Promise.resolve(0);
      try {
        a.ingest = await startIngest(h.config(), { log: a.log });
        await until(
          'the first member owns every partition and stores',
          async () => a.assigned.length === PARTITIONS && (await stored(a)) > 0,
          WAIT,
        );

        const aJoinsBefore = a.joins;
        b.ingest = await startIngest(h.config(), { log: b.log });
        await until(
          'both members report the split assignment',
          () =>
            b.joins > 0 &&
            a.joins > aJoinsBefore &&
            a.assigned.length > 0 &&
            b.assigned.length > 0 &&
            a.assigned.length + b.assigned.length === PARTITIONS,
          WAIT,
        );
        const split = { a: [...a.assigned], b: [...b.assigned] };
        assert.deepEqual(
          [...split.a, ...split.b].sort(),
          Array.from({ length: PARTITIONS }, (_, p) => p),
          `the two members' partitions are disjoint and cover the topic (${JSON.stringify(split)})`,
        );
        await until('the second member stores rows of its partitions', async () => (await stored(b)) > 0, WAIT);

        const aJoinsBeforeLeave = a.joins;
        await b.ingest.stop();
        await until(
          'the first member takes every partition back',
          () => a.joins > aJoinsBeforeLeave && a.assigned.length === PARTITIONS,
          WAIT,
        );
        const producedAtLeave = produced;
        await until('more of the stream is sent after the leave', () => produced >= producedAtLeave + 30, WAIT);
        producing = false;
        await stream;

        const expected = produced * TOOL_SPANS;
        const rows = `SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = 'rebalance'`;
        const n = await h.waitForCount(rows, expected, 120_000);
        if (n !== expected) {
          const lag = await fetchConsumerLag(h.kafka, h.groupId, h.topic);
          assert.fail(
            `every produced message is stored: ${n} of ${expected} rows (${produced} messages); group lag ${JSON.stringify(lag)}; ` +
              `first member: ${a.lines.join(' | ')}; second member: ${b.lines.join(' | ')}`,
          );
        }
        // A late duplicate would be stored before the markers sent after every message.
        await h.storedThroughMarkers();
        assert.equal(await h.count(rows), expected, 'no message is stored twice');
        assert.equal(
          await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls WHERE tenant = 'rebalance'`),
          expected,
        );
        assert.ok((await stored(b)) > 0 && (await stored(a)) > 0, 'both members stored rows');
      } finally {
        producing = false;
        await stream.catch(() => {});
        await Promise.allSettled([a.ingest?.stop(), b.ingest?.stop()]);
      }
    });
  });
