import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import type { BatchLog, BatchLogEntry, BatchRange, RecordedMessageId } from '../../../ingest/batch-log.ts';
import { IngestLoop, type Timers } from '../../../ingest/consumer.ts';
import { IngestMetrics } from '../../../ingest/metrics.ts';
import type { RowWriter, WriteOptions } from '../../../ingest/writer.ts';
import type {
  BatchConsumer,
  BatchControl,
  BatchMessage,
  FetchedBatch,
  OutgoingMessage,
} from '../../../platform/kafka/index.ts';
import { MESSAGE_ID_HEADER, messageIdBytes } from '../../../platform/kafka/index.ts';
import { metricValue } from '../../../platform/metrics/index.ts';
import type { Rows } from '../../../schema/rows.ts';
import { syntheticMessage } from '../../../testkit/ingest.ts';
import { sleep } from '../../../testkit/wait.ts';

const TOPIC = 'otlp_spans';

function message(
  offset: number,
  value: Buffer | null = syntheticMessage({ tenant: 't', toolSpans: 2, seed: offset, startMs: 1_700_000_000_000 }),
): BatchMessage {
  return {
    topic: TOPIC,
    partition: 0,
    offset: String(offset),
    timestamp: String(1_700_000_000_000 + offset),
    key: null,
    value,
    headers: {},
    size: value?.length ?? 0,
  };
}

function batch(from: number, to: number, highWatermark = to + 1): FetchedBatch {
  const messages = [];
  for (let o = from; o <= to; o++) messages.push(message(o));
  return { topic: TOPIC, partition: 0, highWatermark: String(highWatermark), messages };
}

/** Records every side effect in order, so tests assert the state machine's sequence. */
function fakes(
  recorded: BatchRange[] = [],
  limits = { maxRows: 1_000, maxBytes: 1e9 },
  slowWrites = false,
  dedup: { window: number; recent?: RecordedMessageId[] } = { window: 0 },
  /** The batch log loads what it was told, as ingest_batches does, besides `recorded`. */
  logKeepsRecords = false,
) {
  const records: BatchLogEntry[] = [];
  const events: string[] = [];
  const writes: { token: string | undefined; toolCalls: number }[] = [];
  const fetched: string[] = [];
  /** Where the client fetches next: after what it handed over, or where a seek sent it (as the consumer does). */
  let position = 0;
  let failWrites = 0;
  let failCommits = 0;
  let failConfirms = 0;
  /** While set, the next batch-log record tells `reached` and waits for `open` (a slow INTENT insert). */
  let recordGate: { reached: () => void; open: Promise<void> } | undefined;
  const pending: (() => void)[] = [];
  const consumer: BatchConsumer = {
    run: async () => {},
    commit: async (p, next) => {
      if (failCommits > 0) {
        failCommits--;
        events.push(`commit failed ${p}@${next}`);
        throw new Error('The coordinator is not available');
      }
      events.push(`commit ${p}@${next}`);
    },
    confirmAssigned: async (p, next) => {
      if (failConfirms > 0) {
        failConfirms--;
        events.push(`confirm failed ${p}@${next}`);
        throw new Error('The coordinator is not aware of this member');
      }
      events.push(`confirm ${p}@${next}`);
    },
    pause: (ps) => events.push(`pause ${ps.join(',')}`),
    resume: (ps) => events.push(`resume ${ps.join(',')}`),
    seek: (p, o) => {
      position = Number(o);
      events.push(`seek ${p}@${o}`);
    },
    onAssignment: () => {},
    onCrash: () => {},
    disconnect: async () => {},
  };
  const writer: RowWriter = {
    async writeRows(rows: Rows, o: WriteOptions = {}) {
      // A slow ClickHouse: the loop decodes ahead meanwhile.
      if (slowWrites) await sleep(5); // a writer slower than the loop, as a real insert is
      if (failWrites > 0) {
        failWrites--;
        events.push('write failed');
        throw new Error('ClickHouse is down');
      }
      events.push(`write ${o.dedupToken}`);
      writes.push({ token: o.dedupToken, toolCalls: rows.toolCalls.length });
      return { rows: { toolCalls: rows.toolCalls.length, warnings: 0, spans: rows.spans.length }, insertMs: 1 };
    },
  };
  const batchLog: BatchLog = {
    load: async (p, from) => {
      events.push(`load ${p}@${from}`);
      if (!logKeepsRecords) return recorded;
      const byFirst = new Map<number, BatchRange>(recorded.map((r) => [r.first, r]));
      for (const e of records)
        byFirst.set(e.range.first, {
          ...e.range,
          stored: e.state === 1 || (byFirst.get(e.range.first)?.stored ?? false),
        });
      return [...byFirst.values()].filter((r) => r.last >= from).sort((a, b) => a.first - b.first);
    },
    record: async (entries: BatchLogEntry[]) => {
      const gate = recordGate;
      recordGate = undefined;
      if (gate) {
        gate.reached();
        await gate.open;
      }
      for (const e of entries) events.push(`${e.state === 0 ? 'intent' : 'stored'} ${e.range.first}-${e.range.last}`);
      records.push(...entries);
    },
    recentMessageIds: async (p, before, window) => {
      events.push(`recent ${p}@${before}-${window}`);
      return dedup.recent ?? [];
    },
  };
  const letters: OutgoingMessage[] = [];
  const timers: Timers = {
    setTimeout: (fn) => {
      pending.push(fn);
      return pending.length;
    },
    clearTimeout: () => {},
  };
  const control: BatchControl = {
    isActive: () => true,
    heartbeat: async () => {},
    markFetched: (o) => {
      position = Number(o) + 1;
      fetched.push(o);
    },
  };
  const metrics = new IngestMetrics();
  const loop = new IngestLoop({
    topic: TOPIC,
    consumer,
    writer,
    batchLog,
    deadLetters: {
      send: async (m) => {
        events.push(`dead-letter ${m.length}`);
        letters.push(...m);
      },
    },
    metrics,
    limits,
    backoff: { initialMs: 100, maxMs: 400 },
    dedupWindow: dedup.window,
    timers,
  });
  return {
    loop,
    records,
    events,
    writes,
    fetched,
    letters,
    metrics,
    control,
    failNextWrites: (n: number) => {
      failWrites = n;
    },
    nextFetchFrom: () => position,
    failNextCommits: (n: number) => {
      failCommits = n;
    },
    failNextConfirms: (n: number) => {
      failConfirms = n;
    },
    /** Holds the next batch-log record until `release()`; `reached` resolves once the loop is waiting on it. */
    holdNextRecord: () => {
      let release = () => {};
      let reached = () => {};
      const open = new Promise<void>((r) => {
        release = r;
      });
      const waiting = new Promise<void>((r) => {
        reached = r;
      });
      recordGate = { reached, open };
      return { release, reached: waiting };
    },
    fireTimers: () => {
      for (const fn of pending.splice(0)) fn();
    },
  };
}

const token = (first: number, last: number) => `${TOPIC}:0:${first}-${last}@${1_700_000_000_000 + first}`;

describe('ingest loop', () => {
  it('records the range, stores the rows, marks them stored, and only then commits last+1', async () => {
    const f = fakes();
    await f.loop.onBatch(batch(0, 2), f.control);
    assert.deepEqual(f.events, [
      'load 0@0',
      'intent 0-2',
      'confirm 0@0',
      `write ${token(0, 2)}`,
      'stored 0-2',
      'commit 0@3',
    ]);
    assert.deepEqual(f.fetched, ['2']);
    assert.equal(f.writes[0]?.toolCalls, 6);
  });

  it('cuts one large fetch into batches of maxRows, in offset order, each with exactly its own messages rows', async () => {
    // 3 spans per message (2 tool spans and their parent): 10 messages per batch of 30 rows. Enough messages that
    // decoding takes several slices and runs ahead while the (slow) inserts are in flight.
    const f = fakes([], { maxRows: 30, maxBytes: 1e9 }, true);
    await f.loop.onBatch(batch(0, 1_999), f.control);
    assert.equal(f.writes.length, 200);
    f.writes.forEach((w, i) => {
      assert.equal(w.token, token(i * 10, i * 10 + 9));
      assert.equal(w.toolCalls, 20);
    });
    assert.equal(f.events.filter((e) => e.startsWith('commit')).at(-1), 'commit 0@2000');
  });

  it('replays a recorded range with its own token after a restart', async () => {
    const f = fakes([{ first: 0, last: 1, firstTimestamp: 1_700_000_000_000, firstHash: hashOf(0), stored: false }]);
    await f.loop.onBatch(batch(0, 4), f.control);
    assert.deepEqual(f.events, [
      'load 0@0',
      'confirm 0@0',
      `write ${token(0, 1)}`,
      'stored 0-1',
      'commit 0@2',
      'intent 2-4',
      'confirm 0@2',
      `write ${token(2, 4)}`,
      'stored 2-4',
      'commit 0@5',
    ]);
  });

  it('waits for the whole recorded range across fetches instead of storing part of it', async () => {
    const f = fakes([{ first: 0, last: 3, firstTimestamp: 1_700_000_000_000, firstHash: hashOf(0), stored: false }]);
    await f.loop.onBatch(batch(0, 1, 10), f.control);
    assert.deepEqual(f.events, ['load 0@0']);
    assert.deepEqual(f.fetched, ['1'], 'the next fetch continues after what is buffered');
    await f.loop.onBatch(batch(2, 3, 10), f.control);
    assert.deepEqual(f.events.slice(1), ['confirm 0@0', `write ${token(0, 3)}`, 'stored 0-3', 'commit 0@4']);
  });

  it('commits past a recorded range that was already stored, without inserting it again', async () => {
    const f = fakes([{ first: 0, last: 1, firstTimestamp: 1_700_000_000_000, firstHash: hashOf(0), stored: true }]);
    await f.loop.onBatch(batch(0, 1), f.control);
    assert.deepEqual(f.events, ['load 0@0', 'commit 0@2']);
  });

  it('when ClickHouse is down: seeks back, pauses, resumes after a growing backoff, and retries the same range', async () => {
    const f = fakes();
    f.failNextWrites(2);
    await f.loop.onBatch(batch(0, 2), f.control);
    assert.deepEqual(f.events, ['load 0@0', 'intent 0-2', 'confirm 0@0', 'write failed', 'seek 0@0', 'pause 0']);
    assert.equal(await metricValue(f.metrics.insertFailures), 1);
    f.fireTimers();
    assert.equal(f.events.at(-1), 'resume 0');
    // Kafka re-delivers from the sought offset, possibly with more messages: the range stays [0, 2].
    await f.loop.onBatch(batch(0, 5), f.control);
    f.fireTimers();
    await f.loop.onBatch(batch(0, 5), f.control);
    const tail = f.events.slice(f.events.lastIndexOf('resume 0') + 1);
    assert.deepEqual(tail, [
      'confirm 0@0',
      `write ${token(0, 2)}`,
      'stored 0-2',
      'commit 0@3',
      'intent 3-5',
      'confirm 0@3',
      `write ${token(3, 5)}`,
      'stored 3-5',
      'commit 0@6',
    ]);
    assert.ok(
      f.events.findIndex((e) => e.startsWith('commit')) > f.events.lastIndexOf('write failed'),
      'nothing committed before the range was stored',
    );
  });

  it('dead-letters an undecodable message before the commit and stores its neighbours', async () => {
    const f = fakes();
    const b: FetchedBatch = {
      topic: TOPIC,
      partition: 0,
      highWatermark: '3',
      messages: [message(0), message(1, Buffer.from([0xff, 0xff, 0xff])), message(2)],
    };
    await f.loop.onBatch(b, f.control);
    // The dead letter and the insert run side by side; both precede the commit.
    assert.deepEqual(new Set(f.events.slice(3, 5)), new Set(['dead-letter 1', `write ${token(0, 2)}`]));
    assert.deepEqual(f.events.slice(5), ['stored 0-2', 'commit 0@3']);
    assert.equal(f.writes[0]?.toolCalls, 4);
    assert.equal(await metricValue(f.metrics.deadLetters, { reason: 'decode_error' }), 1);
  });

  it('after a failed commit, never commits past the messages it had buffered but not stored', async () => {
    // 3 rows per message: ranges of 2 messages. The commit of [0, 1] fails (coordinator restarting) with [2, 5]
    // buffered; the consumer, its member still in the same generation, fetches on from its own position.
    const f = fakes([], { maxRows: 6, maxBytes: 1e9 });
    f.failNextCommits(1);
    await f.loop.onBatch(batch(0, 5, 9), f.control);
    assert.ok(f.events.includes('commit failed 0@2'));
    // Still in its generation, the client fetches on from where it is.
    await f.loop.onBatch(batch(f.nextFetchFrom(), 8, 9), f.control);
    // Walked in order: at each commit, every offset before it was stored by then.
    const stored = new Set<number>();
    const commits: number[] = [];
    for (const e of f.events) {
      const w = /^write otlp_spans:0:(\d+)-(\d+)@/.exec(e);
      if (w) for (let o = Number(w[1]); o <= Number(w[2]); o++) stored.add(o);
      const c = /^commit 0@(\d+)$/.exec(e);
      if (!c) continue;
      commits.push(Number(c[1]));
      for (let o = 0; o < Number(c[1]); o++)
        assert.ok(stored.has(o), `committed ${c[1]} with ${o} not stored: ${f.events}`);
    }
    assert.equal(commits.at(-1), 9);
  });

  it('a re-delivery from an older commit after its buffer emptied is skipped as stored, not stored again', async () => {
    // The soak's duplicates: [0, 1] stored, its commit failed (a broker killed), [2, 3] stored and committed with
    // the buffer then empty; the client, restarted, fetched again from the older commit 0, and a new cut [0, 3] would
    // have a new token (ClickHouse keeps both).
    const f = fakes([], { maxRows: 12, maxBytes: 1e9 }, false, { window: 0 }, true);
    f.failNextCommits(1);
    await f.loop.onBatch(batch(0, 1, 4), f.control);
    assert.ok(f.events.includes('commit failed 0@2'));
    await f.loop.onBatch(batch(2, 3, 4), f.control);
    assert.equal(f.events.at(-1), 'commit 0@4');
    await f.loop.onBatch(batch(0, 3, 4), f.control);
    assert.deepEqual(
      f.writes.map((w) => w.token),
      [token(0, 1), token(2, 3)],
      `each offset stored once: ${f.events}`,
    );
    assert.deepEqual(f.events.slice(-3), ['load 0@0', 'commit 0@2', 'commit 0@4']);
  });

  it('after a rebalance forgets its buffers and reloads the recorded ranges', async () => {
    const f = fakes([{ first: 0, last: 3, firstTimestamp: 1_700_000_000_000, firstHash: hashOf(0), stored: false }]);
    await f.loop.onBatch(batch(0, 1, 10), f.control);
    f.loop.onAssignment([0]);
    await f.loop.onBatch(batch(0, 3, 10), f.control);
    assert.deepEqual(f.events, [
      'load 0@0',
      'load 0@0',
      'confirm 0@0',
      `write ${token(0, 3)}`,
      'stored 0-3',
      'commit 0@4',
    ]);
  });

  it('a member the group no longer gives the partition stores nothing: the range stays recorded for its new owner', async () => {
    // The coordinator refuses the member (dropped after missing its heartbeats): it must not insert [0, 2], which
    // the partition's new owner may be storing under a range cut differently.
    const f = fakes();
    f.failNextConfirms(1);
    await f.loop.onBatch(batch(0, 2), f.control);
    assert.deepEqual(f.events, ['load 0@0', 'intent 0-2', 'confirm failed 0@0', 'seek 0@0', 'pause 0']);
    assert.equal(f.writes.length, 0);
    assert.equal(await metricValue(f.metrics.fencedBatches), 1);
    // Still its partition after all (the coordinator was moving): the same range, same token, once confirmed.
    f.fireTimers();
    await f.loop.onBatch(batch(0, 4), f.control);
    const tail = f.events.slice(f.events.indexOf('resume 0') + 1);
    assert.deepEqual(tail.slice(0, 4), ['confirm 0@0', `write ${token(0, 2)}`, 'stored 0-2', 'commit 0@3']);
  });

  it('a batch whose INTENT outlived a group join is not stored: the new generation hands the partition out again', async () => {
    const f = fakes();
    const hold = f.holdNextRecord();
    const storing = f.loop.onBatch(batch(0, 2), f.control);
    await hold.reached;
    f.loop.onAssignment([0]);
    hold.release();
    await storing;
    assert.deepEqual(f.events, ['load 0@0', 'intent 0-2']);
    assert.equal(f.writes.length, 0);
  });

  it('resumes a partition paused for a retry when a join takes it away, so a later join finds it fetchable', async () => {
    const f = fakes();
    f.failNextWrites(1);
    await f.loop.onBatch(batch(0, 2), f.control);
    assert.equal(f.events.at(-1), 'pause 0');
    f.loop.onAssignment([1]);
    assert.equal(f.events.at(-1), 'resume 0');
  });
});

describe('ingest loop, re-sent messages', () => {
  const value = (seed: number) => syntheticMessage({ tenant: 't', toolSpans: 2, seed, startMs: 1_700_000_000_000 });
  const idOf = (seed: number) => messageIdBytes(value(seed)).toString('hex');
  const rawIdOf = (seed: number) => messageIdBytes(value(seed)).toString('latin1');
  /** Messages from offset `from` with these seeds (a repeated seed is a client's re-send of the same request). */
  const resent = (from: number, seeds: number[], highWatermark = from + seeds.length): FetchedBatch => ({
    topic: TOPIC,
    partition: 0,
    highWatermark: String(highWatermark),
    messages: seeds.map((seed, i) => message(from + i, value(seed))),
  });

  it('stores a message re-sent by a client once, and records the offset it left out with the range', async () => {
    const f = fakes([], undefined, false, { window: 100 });
    await f.loop.onBatch(resent(0, [0, 1, 0, 2]), f.control);
    assert.deepEqual(f.events, [
      'load 0@0',
      'recent 0@0-100',
      'intent 0-3',
      'confirm 0@0',
      `write ${token(0, 3)}`,
      'stored 0-3',
      'commit 0@4',
    ]);
    assert.equal(f.writes[0]?.toolCalls, 6, 'three distinct messages of 2 tool calls');
    assert.deepEqual(
      f.records.map((r) => r.range.skipped),
      [[2], [2]],
    );
    assert.equal(f.records[0]?.messageIds, [0, 1, 0, 2].map(idOf).join(''));
    assert.equal(await metricValue(f.metrics.resentMessages), 1);
    assert.equal(await metricValue(f.metrics.resentSpans), 3);
  });

  it('leaves out a re-send of a message stored in an earlier batch', async () => {
    const f = fakes([], { maxRows: 3, maxBytes: 1e9 }, false, { window: 100 });
    await f.loop.onBatch(resent(0, [0, 1, 0]), f.control);
    assert.deepEqual(
      f.writes.map((w) => w.toolCalls),
      [2, 2, 0],
    );
    assert.deepEqual(f.records.at(-1)?.range.skipped, [2]);
  });

  it('after a restart, leaves out a re-send of a message stored before it (ids read back from the batch log)', async () => {
    const f = fakes([], undefined, false, { window: 100, recent: [{ offset: 4, id: rawIdOf(7) }] });
    await f.loop.onBatch(resent(5, [8, 7, 9]), f.control);
    assert.equal(f.events[1], 'recent 0@5-100');
    assert.equal(f.writes[0]?.toolCalls, 4);
    assert.deepEqual(f.records[0]?.range.skipped, [6]);
  });

  it('stores identical content again when its twin is further back than the window', async () => {
    const f = fakes([], undefined, false, { window: 2 });
    await f.loop.onBatch(resent(0, [0, 1, 2, 0]), f.control);
    assert.equal(f.writes[0]?.toolCalls, 8);
    assert.equal(f.records[0]?.range.skipped, undefined);
  });

  it('replays a recorded range with the offsets it recorded as left out, not a new decision', async () => {
    // Recorded with offset 1 left out; the window (restarted empty, nothing recent) would now keep everything.
    const recorded = { first: 0, last: 2, firstTimestamp: 1_700_000_000_000, firstHash: hashOf(0), stored: false };
    const f = fakes([{ ...recorded, skipped: [1] }], undefined, false, { window: 100 });
    await f.loop.onBatch(batch(0, 2), f.control);
    assert.equal(f.writes[0]?.toolCalls, 4);
    assert.equal(f.writes[0]?.token, token(0, 2));
    // And a range recorded with nothing left out is replayed whole, even if it holds a re-send.
    const g = fakes([recorded], undefined, false, { window: 100 });
    await g.loop.onBatch(resent(0, [0, 0, 1]), g.control);
    assert.equal(g.writes[0]?.toolCalls, 6);
  });

  it("takes the collector's id header as the message's id, and computes it when the header is malformed", async () => {
    const f = fakes([], undefined, false, { window: 100 });
    const b = resent(0, [0, 1, 2]);
    const [m0, m1, m2] = b.messages as [BatchMessage, BatchMessage, BatchMessage];
    m0.headers[MESSAGE_ID_HEADER] = Buffer.alloc(16, 7);
    m1.headers[MESSAGE_ID_HEADER] = Buffer.alloc(16, 7);
    m2.headers[MESSAGE_ID_HEADER] = Buffer.alloc(15, 7);
    await f.loop.onBatch(b, f.control);
    assert.deepEqual(f.records[0]?.range.skipped, [1]);
    assert.equal(f.records[0]?.messageIds, `${'07'.repeat(32)}${idOf(2)}`);
  });

  it('with a window of 0 stores every message and reads or records no ids', async () => {
    const f = fakes();
    await f.loop.onBatch(resent(0, [0, 0]), f.control);
    assert.equal(f.writes[0]?.toolCalls, 4);
    assert.ok(!f.events.some((e) => e.startsWith('recent')));
    assert.equal(f.records[0]?.messageIds, undefined);
  });
});

function hashOf(offset: number): string {
  return createHash('sha1')
    .update(syntheticMessage({ tenant: 't', toolSpans: 2, seed: offset, startMs: 1_700_000_000_000 }))
    .digest('hex')
    .slice(0, 16);
}
