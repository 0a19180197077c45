/**
 * A member the group dropped while one of its batches had not reached its insert, against the real Kafka and
 * ClickHouse. kafkajs heartbeats only between batches: a member held in one batch past its session timeout is
 * dropped without knowing it, and the partition's new owner stores the same offsets from the committed one, under a
 * range it cuts itself. Were the dropped member then to insert its own range, ClickHouse would keep both (two
 * tokens). The ingest asks the group coordinator between INTENT and STORE (IngestLoop.stillAssigned); without that
 * question this test fails on kafkajs: the held range is stored twice.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BATCH_INTENT, type BatchLog, createBatchLog } from '../../../ingest/batch-log.ts';
import { IngestLoop } from '../../../ingest/consumer.ts';
import { IngestMetrics } from '../../../ingest/metrics.ts';
import { createClickHouseWriter } from '../../../ingest/writer.ts';
import { createBatchConsumer, KAFKA_CLIENTS } from '../../../platform/kafka/index.ts';
import { metricValue } from '../../../platform/metrics/index.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { until } from '../../../testkit/wait.ts';
import { createHarness, type Harness, PARTITIONS } from './harness.ts';

const TOOL_SPANS = 4;
const TENANT = 'dropped';

/** Waits that ran out, named in the assertion messages (some waits are allowed to: see the test). */
const timedOut: string[] = [];

/** Waits until `check` holds; false (and the wait named in `timedOut`) when it did not within `timeoutMs`. */
function waitOrNote(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<boolean> {
  return until(what, check, { timeoutMs, everyMs: 100 }).then(
    () => true,
    () => {
      timedOut.push(what);
      return false;
    },
  );
}

/** Holds the first INTENT a member records until `open()`: its batch is planned, its range not yet recorded. */
class IntentGate {
  partition: number | undefined;
  private release: () => void = () => {};
  private readonly opened = new Promise<void>((r) => {
    this.release = r;
  });
  wrap(log: BatchLog): BatchLog {
    return {
      ...log,
      record: async (entries) => {
        const first = entries[0];
        if (this.partition === undefined && first?.state === BATCH_INTENT) {
          this.partition = first.partition;
          await this.opened;
        }
        return log.record(entries);
      },
    };
  }
  open(): void {
    this.release();
  }
}

/** One ingest member built from the real parts, as `tooltrail ingest` builds it, with an optional gate on INTENT. */
class Member {
  readonly lines: string[] = [];
  readonly metrics = new IngestMetrics();
  assigned: number[] = [];
  loop: IngestLoop | undefined;

  constructor(
    private readonly h: Harness,
    readonly gate?: IntentGate,
  ) {}

  async start(): Promise<void> {
    const h = this.h;
    const consumer = await createBatchConsumer(h.kafka, {
      groupId: h.groupId,
      topic: h.topic,
      minBytes: 1,
      maxWaitTimeMs: 50,
      // The broker's minimum session: a member silent for 6 s is dropped.
      sessionTimeoutMs: 6_000,
      heartbeatIntervalMs: 2_000,
      partitionsConcurrently: PARTITIONS,
    });
    const batchLog = createBatchLog(h.db.ch, h.db.database, h.groupId, h.topic);
    this.loop = new IngestLoop({
      topic: h.topic,
      consumer,
      writer: createClickHouseWriter(h.db.ch, { database: h.db.database, metrics: this.metrics }),
      batchLog: this.gate ? this.gate.wrap(batchLog) : batchLog,
      deadLetters: { send: (messages) => h.producer.send(h.dlqTopic, messages) },
      metrics: this.metrics,
      // Ranges of whatever is buffered: a member that fetched later cuts a longer range from the same offset.
      limits: { maxRows: 100_000, maxBytes: 32 * 1024 * 1024 },
      backoff: { initialMs: 100, maxMs: 1_000 },
      log: (line) => {
        this.lines.push(line);
        const m = /^group join(?: \(leader\))?: partitions (.*)$/.exec(line);
        if (m) this.assigned = m[1] === 'none' ? [] : (m[1] as string).split(',').map(Number);
      },
    });
    await this.loop.run();
  }

  rows(): Promise<number> {
    return metricValue(this.metrics.rowsWritten, { table: 'tool_calls' });
  }
}

for (const client of KAFKA_CLIENTS)
  describe(`ingest member dropped mid-batch (real Kafka, real ClickHouse, ${client})`, () => {
    let h: Harness;
    before(async () => {
      h = await createHarness('dropped', { client });
    });
    after(async () => {
      await h?.close();
    });

    it('a member the group dropped before its insert stores nothing its partition’s new owner stored', async () => {
      const db = h.db.database;
      const rows = `SELECT count() AS n FROM ${db}.tool_calls WHERE tenant = '${TENANT}'`;
      const produce = (from: number, n: number) =>
        h.produce(
          Array.from({ length: n }, (_, i) =>
            syntheticMessage({ tenant: TENANT, toolSpans: TOOL_SPANS, seed: from + i }),
          ),
        );
      const gate = new IntentGate();
      const held = new Member(h, gate);
      const owner = new Member(h);
      try {
        await produce(700_000, 30);
        await held.start();
        assert.ok(
          await waitOrNote(
            'the first member plans a batch and is held before its INTENT',
            () => gate.partition !== undefined,
          ),
          `the first member planned a batch: ${held.lines.join(' | ')}`,
        );
        const p = gate.partition as number;
        // More messages: whoever plans partition p from now on cuts a longer range from the same committed offset.
        await produce(700_030, 30);
        const expected = 60 * TOOL_SPANS;
        await owner.start();
        // kafkajs: the held member sends no heartbeat, is dropped after its session, and the new member takes every
        // partition. @platformatic/kafka heartbeats in the background: the held member stays, p may stay with it.
        await waitOrNote(
          `the new member holds partition ${p} and has stored everything`,
          async () => owner.assigned.includes(p) && (await h.count(rows)) === expected,
          40_000,
        );
        const tookOver = owner.assigned.includes(p);
        const heldRowsBefore = await held.rows();
        gate.open();
        await waitOrNote(
          'the held member either gives up its batch or stores it',
          async () => (await metricValue(held.metrics.fencedBatches)) > 0 || (await held.rows()) > heldRowsBefore,
          30_000,
        );
        await waitOrNote('everything is stored', async () => (await h.count(rows)) >= expected, 60_000);
        // A late duplicate would be stored before the markers sent after every message.
        await h.storedThroughMarkers();
        const n = await h.count(rows);
        assert.equal(
          n,
          expected,
          `every message stored once (partition ${p} ${tookOver ? 'taken over' : 'kept by the held member'}): ${n} rows of ${expected}; ` +
            `waits that ran out: ${timedOut.join('; ') || 'none'}; ` +
            `held member: ${held.lines.join(' | ')}; new member: ${owner.lines.join(' | ')}`,
        );
        assert.equal(
          await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls WHERE tenant = '${TENANT}'`),
          expected,
        );
        if (client === 'kafkajs') {
          assert.ok(tookOver, 'kafkajs drops the member that sent no heartbeat; the new member took its partition');
          assert.ok((await metricValue(held.metrics.fencedBatches)) > 0, 'the dropped member gave up its batch');
        }
      } finally {
        gate.open();
        await Promise.allSettled([held.loop?.stop(), owner.loop?.stop()]);
      }
    });
  });
