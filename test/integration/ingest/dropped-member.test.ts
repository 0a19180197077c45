/**
 * A member the group dropped while one of its batches had not reached its insert, against the real Kafka and
 * ClickHouse. A member whose process stalls past its session timeout (a long GC pause, a stopped VM) sends no
 * heartbeat and is dropped without knowing it, and the partition's new owner (here a `tooltrail ingest` process,
 * which runs on while this one stalls) stores the same offsets from the committed one, under a range it cuts itself.
 * Were the dropped member then to insert its own range, ClickHouse would keep both (two tokens). The ingest asks
 * before its insert whether a group join happened and whether the group coordinator still gives it the partition
 * (IngestLoop.stillAssigned): the range is stored once. Without that question this test fails.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
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
/** The members' session: the broker's minimum, so a stall of STALL_MS outlasts it. */
const SESSION_MS = 6_000;
/** Long enough for the coordinator to drop the member and for the new member to store everything meanwhile. */
const STALL_MS = 20_000;

const CHILD = fileURLToPath(new URL('./ingest-child.ts', import.meta.url));

/** Stops this thread's event loop for `ms` (no timer, no heartbeat, no I/O runs), as a long pause of the process. */
function stallEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

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
      sessionTimeoutMs: SESSION_MS,
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
      let owner: ChildProcess | undefined;
      let ownerLog = '';
      const ownerJoins = () => [...ownerLog.matchAll(/group join(?: \(leader\))?: partitions (\S+)/g)].map((m) => m[1]);
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
        owner = spawn(process.execPath, ['--import', 'tsx', CHILD], {
          env: h.env({ TOOLTRAIL_INGEST_SESSION_TIMEOUT_MS: String(SESSION_MS) }),
          stdio: ['ignore', 'ignore', 'pipe'],
        });
        owner.stderr?.on('data', (d: Buffer) => {
          ownerLog += d.toString();
        });
        assert.ok(await waitOrNote('the new member joins the group', () => ownerJoins().length > 0, 60_000), ownerLog);
        const joinsBefore = held.lines.filter((l) => l.startsWith('group join')).length;
        // The held member's process stalls past its session: no heartbeat goes out, the coordinator drops it, and the
        // new member, which runs on, gets every partition and stores them from the committed offsets.
        stallEventLoop(STALL_MS);
        assert.ok(
          await waitOrNote(
            'the held member learns it was dropped and joins again',
            () => held.lines.filter((l) => l.startsWith('group join')).length > joinsBefore,
            30_000,
          ),
          `the stalled member was dropped from the group: ${held.lines.join(' | ')}`,
        );
        const tookOver = ownerJoins().some((parts) => (parts ?? '').split(',').map(Number).includes(p));
        assert.ok(tookOver, `the new member held partition ${p} at some join: ${ownerJoins().join(' / ')}`);
        // Partition p's messages are stored by the new member only: the held member's batch of p still waits.
        assert.ok(
          await waitOrNote(
            'the new member stores every message',
            async () => (await h.count(rows)) >= expected,
            60_000,
          ),
          `the new member stored everything while the held batch waited: ${ownerLog}`,
        );
        const heldRowsBefore = await held.rows();
        gate.open();
        await waitOrNote(
          'the held member either gives up its batch or stores it',
          async () => (await metricValue(held.metrics.fencedBatches)) > 0 || (await held.rows()) > heldRowsBefore,
          30_000,
        );
        // A late duplicate would be stored before the markers sent after every message.
        await h.storedThroughMarkers();
        const n = await h.count(rows);
        assert.equal(
          n,
          expected,
          `every message stored once: ${n} rows of ${expected}; waits that ran out: ${timedOut.join('; ') || 'none'}; ` +
            `held member: ${held.lines.join(' | ')}; new member: ${ownerLog}`,
        );
        assert.equal(
          await h.count(`SELECT uniqExact(trace_id, span_id) AS n FROM ${db}.tool_calls WHERE tenant = '${TENANT}'`),
          expected,
        );
      } finally {
        gate.open();
        owner?.kill('SIGTERM');
        await Promise.allSettled([
          held.loop?.stop(),
          owner && owner.exitCode === null ? new Promise((r) => owner?.once('exit', r)) : undefined,
        ]);
      }
    });
  });
