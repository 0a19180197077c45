/**
 * The Kafka -> ClickHouse loop, exactly once (docs/exactly-once.md): per partition, PLAN a range, record its
 * INTENT, STORE its rows with deduplication tokens (dead letters alongside), mark it stored, COMMIT last+1.
 * ClickHouse down: seek back, pause the partition, resume after a backoff; nothing is committed ahead of storage.
 *
 * Every dependency is injected (consumer, writer, batch log, dead-letter sender, clock) so the state machine is
 * unit-tested with fakes and integration-tested with the real services.
 */
import { createHash } from 'node:crypto';
import {
  type BatchConsumer,
  type BatchControl,
  type BatchMessage,
  type FetchedBatch,
  messageIdOf,
  type OutgoingMessage,
} from '../platform/kafka/index.ts';
import { decodeExportTraceServiceRequest, type ExportTraceServiceRequest } from '../platform/otlp/index.ts';
import { BATCH_INTENT, BATCH_STORED, type BatchLog, type BatchLogEntry, type BatchRange } from './batch-log.ts';
import { assembleBlocks, ColumnArena, type ColumnsMark } from './columns/arena.ts';
import type { DeclineReason } from './columns/decline.ts';
import { decodeToColumns } from './columns/decode.ts';
import { reasonOf, rejectedSpansLetters, undecodableLetter } from './dead-letter.ts';
import { DeadLetterLog } from './dead-letter-log.ts';
import { DedupWindow } from './dedup-window.ts';
import { emptyFlattenResult, type FlattenOptions, type FlattenResult, flattenInto } from './flatten.ts';
import type { IngestMetrics } from './metrics.ts';
import { PartitionPlanner, type PlanEntry, type PlanLimits } from './partition-plan.ts';
import type { RowWriter } from './writer.ts';

export interface DeadLetterSender {
  /** Resolves once the dead-letter topic acknowledged every message. */
  send(messages: OutgoingMessage[]): Promise<void>;
}

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

export interface IngestLoopOptions {
  topic: string;
  consumer: BatchConsumer;
  writer: RowWriter;
  batchLog: BatchLog;
  deadLetters: DeadLetterSender;
  /** The dead-letter topic's name, for the log lines about letters. */
  deadLetterTopic?: string;
  metrics: IngestMetrics;
  limits: PlanLimits;
  backoff: { initialMs: number; maxMs: number };
  /**
   * Messages per partition within which a re-sent message (same id) is left out (ingest/dedup-window.ts);
   * 0 or absent: every message is stored.
   */
  dedupWindow?: number;
  flatten?: FlattenOptions;
  timers?: Timers;
  /** The clock of the dead-letter log's rate rule (default Date.now). */
  now?: () => number;
  /** Operational messages (failures, retries); never throws into the loop. */
  log?: (message: string) => void;
}

/**
 * A buffered message, decoded and flattened on first need (planning reads `rows`; a decode-ahead pass fills it
 * in yielding slices): only the messages of the next batch are decoded before its insert starts, and the next
 * batch is decoded while this one's insert runs in ClickHouse. Its decoded tree dies young (only the rows stay).
 */
class Entry implements PlanEntry {
  readonly offset: number;
  readonly timestamp: number;
  readonly size: number;
  private decoded = false;
  private hashValue: string | undefined;
  private idValue: string | undefined;
  private spanRows = 0;
  /**
   * The message's rows as Native column bytes in the partition's arena (ingest/columns/), when it took
   * that path; else `flat` holds its rows (unset when undecodable).
   */
  mark: ColumnsMark | undefined;
  /** The message's rows (unset when undecodable or decoded to columns). */
  flat: FlattenResult | undefined;
  /** Kept only when some spans were rejected (to dead-letter them). */
  request: ExportTraceServiceRequest | undefined;
  error: string | undefined;

  constructor(
    readonly message: BatchMessage,
    private readonly options: FlattenOptions | undefined,
    /** Where to decode the rows to, when the writer takes encoded blocks. */
    readonly arena: ColumnArena | undefined,
    /** Counts a message the column path left to the general path, by reason. */
    private readonly declines: (reason: DeclineReason) => void,
  ) {
    this.offset = Number(message.offset);
    this.timestamp = Number(message.timestamp);
    this.size = message.size;
  }

  get rows(): number {
    this.decode();
    return this.spanRows;
  }

  get isDecoded(): boolean {
    return this.decoded;
  }

  hash(): string {
    this.hashValue ??= hashOf(this.message.value);
    return this.hashValue;
  }

  id(): string {
    this.idValue ??= messageIdOf(this.message);
    return this.idValue;
  }

  decode(): void {
    if (this.decoded) return;
    this.decoded = true;
    if (this.arena && this.message.value) {
      this.mark = decodeToColumns(this.arena, this.message.value, this.options, this.declines);
      if (this.mark) {
        this.spanRows = this.mark.toolCalls + this.mark.spans;
        return;
      }
    }
    this.decodeRows();
  }

  /** The general path: decode to objects, flatten to rows (also for a column-decoded message in a mixed batch). */
  decodeRows(): void {
    let request: ExportTraceServiceRequest;
    try {
      request = this.message.value ? decodeExportTraceServiceRequest(this.message.value) : { resourceSpans: [] };
    } catch (err) {
      this.error = (err as Error).message;
      return;
    }
    const flat = emptyFlattenResult();
    flattenInto(flat, request, this.options);
    this.flat = flat;
    this.spanRows = spanCount(request);
    if (flat.rejected.length > 0) this.request = request;
  }
}

/** How long one slice of decoding may hold the event loop before other partitions' I/O gets a turn. */
const DECODE_SLICE_MS = 8;

const yieldToIo = () => new Promise<void>((resolve) => setImmediate(resolve));

function appendRows(to: FlattenResult, from: FlattenResult): void {
  for (const r of from.toolCalls) to.toolCalls.push(r);
  for (const r of from.warnings) to.warnings.push(r);
  for (const r of from.spans) to.spans.push(r);
  for (const r of from.rejected) to.rejected.push(r);
}

/** True when a batch of these entries can be inserted from the arena (no entry holds row objects). */
function allColumns(entries: readonly Entry[]): boolean {
  for (const e of entries) {
    const f = e.flat;
    if (f && (f.toolCalls.length > 0 || f.warnings.length > 0 || f.spans.length > 0)) return false;
  }
  return true;
}

interface PartitionState {
  planner: PartitionPlanner | undefined;
  buffer: Entry[];
  /** The Native column bytes of `buffer`'s decoded messages; replaced with the buffer. */
  arena: ColumnArena | undefined;
  backoffMs: number;
  retryTimer: unknown;
  /**
   * The offset the next fetched batch should start at: after the last message taken, or where this loop sought.
   * A batch from before it is a re-delivery (a consumer restarted from an older commit), even with an empty buffer.
   */
  next: number | undefined;
}

type StoreOutcome = 'stored' | 'failed' | 'lost';

function spanCount(request: ExportTraceServiceRequest): number {
  let n = 0;
  for (const rs of request.resourceSpans ?? []) for (const ss of rs.scopeSpans ?? []) n += ss.spans?.length ?? 0;
  return n;
}

function hashOf(value: Buffer | null): string {
  return createHash('sha1')
    .update(value ?? Buffer.alloc(0))
    .digest('hex')
    .slice(0, 16);
}

/** The ids of `entries` in order, as the batch log records them: hex, concatenated. */
function idsHex(entries: readonly Entry[]): string {
  let ids = '';
  for (const e of entries) ids += e.id();
  return Buffer.from(ids, 'latin1').toString('hex');
}

/** The deduplication token of a batch: its offset range, plus its first message's timestamp (see the design note). */
export function batchToken(topic: string, partition: number, range: BatchRange): string {
  return `${topic}:${partition}:${range.first}-${range.last}@${range.firstTimestamp}`;
}

export class IngestLoop {
  private readonly partitions = new Map<number, PartitionState>();
  private readonly timers: Timers;
  private stopping = false;
  /** Turns at decoding (see decodeForPlan): the tail of the queue, and how many partitions wait in it. */
  private decodeTurn: Promise<void> = Promise.resolve();
  private waitingToDecode = 0;
  private readonly deadLetterLog: DeadLetterLog;
  /** Group joins seen: a batch stored across one belongs to the previous generation. */
  private joins = 0;
  private readonly countDecline = (reason: DeclineReason): void => this.o.metrics.columnPathDeclines.inc({ reason });

  constructor(private readonly o: IngestLoopOptions) {
    this.timers = o.timers ?? realTimers;
    this.deadLetterLog = new DeadLetterLog({
      log: (m) => this.log(m),
      topic: o.deadLetterTopic ?? 'the dead-letter topic',
      timers: this.timers,
      ...(o.now ? { now: o.now } : {}),
    });
  }

  /** Runs until `stop()`. */
  async run(): Promise<void> {
    this.o.consumer.onAssignment((assigned, join) => {
      // One leader line per group generation: what the cluster soak counts as a rebalance.
      this.log(`group join${join?.isLeader ? ' (leader)' : ''}: partitions ${assigned.join(',') || 'none'}`);
      this.onAssignment(assigned);
    });
    await this.o.consumer.run((batch, control) => this.onBatch(batch, control));
  }

  /** Stops taking new batches; the batch in flight finishes (or is abandoned before its STORE). */
  async stop(): Promise<void> {
    this.stopping = true;
    for (const st of this.partitions.values()) this.clearRetry(st);
    await this.o.consumer.disconnect();
    this.deadLetterLog.close();
  }

  /** After any group join the consumer restarts from committed offsets: forget buffers and re-load recorded ranges. */
  onAssignment(assigned: number[]): void {
    this.joins++;
    for (const [p, st] of this.partitions) {
      st.planner = undefined;
      st.buffer = [];
      st.arena = this.newArena();
      st.next = undefined;
      if (!assigned.includes(p)) {
        // Paused for a retry: resumed now, or it would stay paused if a later join gives it back.
        if (st.retryTimer !== undefined) this.o.consumer.resume([p]);
        this.clearRetry(st);
        this.partitions.delete(p);
      }
    }
  }

  private state(p: number): PartitionState {
    let st = this.partitions.get(p);
    if (!st) {
      st = {
        planner: undefined,
        buffer: [],
        arena: this.newArena(),
        backoffMs: 0,
        retryTimer: undefined,
        next: undefined,
      };
      this.partitions.set(p, st);
    }
    return st;
  }

  /** A fresh arena for a fresh buffer (entries still decoding into the old one keep theirs). */
  private newArena(): ColumnArena | undefined {
    return this.o.writer.writeEncoded ? new ColumnArena() : undefined;
  }

  /** Drops a stored batch's entries; their column bytes go with them. */
  private consumed(st: PartitionState, count: number): void {
    st.buffer.splice(0, count);
    if (!st.arena) return;
    const live: ColumnsMark[] = [];
    for (const e of st.buffer) if (e.mark) live.push(e.mark);
    st.arena.compact(live);
  }

  private log(message: string): void {
    try {
      this.o.log?.(message);
    } catch {
      // a broken logger must not break the loop
    }
  }

  /**
   * Decodes what planning the next batch of `entries` needs. Partitions take turns in arrival order (one decodes
   * at a time, yielding to I/O between slices): the first one's insert reaches ClickHouse while the next one
   * decodes, instead of every partition finishing its decode at the same moment and ClickHouse idling till then.
   */
  private async decodeForPlan(entries: readonly Entry[]): Promise<void> {
    if (this.decodedThrough(entries)) return;
    this.waitingToDecode++;
    const previous = this.decodeTurn;
    let release = () => {};
    this.decodeTurn = new Promise<void>((resolve) => {
      release = resolve;
    });
    try {
      await previous;
      this.waitingToDecode--;
      await this.decodeAhead(entries, 0, () => true, false);
    } finally {
      release();
    }
  }

  /** True when the messages of the next batch (within the limits, plus the one overflowing them) are decoded. */
  private decodedThrough(entries: readonly Entry[]): boolean {
    let rows = 0;
    let bytes = 0;
    for (const e of entries) {
      if (!e.isDecoded) return false;
      rows += e.rows;
      bytes += e.size;
      if (rows > this.o.limits.maxRows || bytes > this.o.limits.maxBytes) return true;
    }
    return true;
  }

  /**
   * Decodes `entries[from..]` in slices of DECODE_SLICE_MS, yielding to I/O between slices, until one batch's
   * worth (the limits, plus the message that overflows them) is decoded, or `go()` turns false. In the
   * `background` (the next batch, while this one is stored) it gives way to any partition waiting for its turn.
   */
  private async decodeAhead(
    entries: readonly Entry[],
    from: number,
    go: () => boolean,
    background: boolean,
  ): Promise<void> {
    let rows = 0;
    let bytes = 0;
    let sliceStart = performance.now();
    for (let i = from; i < entries.length && go(); i++) {
      const e = entries[i]!;
      e.decode();
      rows += e.rows;
      bytes += e.size;
      if (rows > this.o.limits.maxRows || bytes > this.o.limits.maxBytes) return;
      if (performance.now() - sliceStart >= DECODE_SLICE_MS) {
        await yieldToIo();
        while (background && this.waitingToDecode > 0 && go()) await this.decodeTurn;
        sliceStart = performance.now();
      }
    }
  }

  async onBatch(batch: FetchedBatch, control: BatchControl): Promise<void> {
    if (this.stopping || !control.isActive() || batch.messages.length === 0) return;
    const p = batch.partition;
    const st = this.state(p);
    const firstOffset = Number(batch.messages[0]!.offset);
    if (st.next !== undefined && firstOffset < st.next) {
      // Re-delivered from an earlier offset (a restart from an older commit): the planner has forgotten the ranges
      // stored before it, so it starts over from the batch log, which skips them.
      st.buffer = [];
      st.arena = this.newArena();
      st.planner = undefined;
    }
    if (!st.planner) {
      try {
        st.planner = await this.newPlanner(p, firstOffset);
      } catch (err) {
        this.fail(st, p, firstOffset, `loading recorded batches failed: ${(err as Error).message}`);
        return;
      }
    }
    for (const m of batch.messages) st.buffer.push(new Entry(m, this.o.flatten, st.arena, this.countDecline));
    const lastOffset = batch.messages[batch.messages.length - 1]!.offset;
    st.next = Number(lastOffset) + 1;
    control.markFetched(lastOffset);
    const highWatermark = Number(batch.highWatermark);
    this.o.metrics.consumerLag.set({ partition: String(p) }, Math.max(0, highWatermark - firstOffset));

    while (st.buffer.length > 0 && !this.stopping && control.isActive()) {
      // A group join during the previous await reset this partition: the consumer re-delivers from the commit.
      if (!st.planner || this.partitions.get(p) !== st) return;
      const buffer = st.buffer;
      await this.decodeForPlan(buffer);
      if (!st.planner || this.partitions.get(p) !== st || st.buffer !== buffer) return;
      if (this.stopping || !control.isActive()) return;
      const plan = st.planner.next(st.buffer, this.o.limits, highWatermark);
      if (plan.kind === 'wait') return;
      if (plan.kind !== 'store' || plan.recorded) {
        this.log(
          `${this.o.topic}[${p}] ${plan.range.first}-${plan.range.last}: recorded range, ${plan.kind === 'skip' ? 'already stored, committing' : 'replaying with its token'}`,
        );
      }
      if (plan.kind === 'skip') {
        // Stored before a crash, not committed: commit without inserting again.
        if (!(await this.commit(st, p, plan.range, st.buffer))) return;
        this.consumed(st, plan.count);
        continue;
      }
      const entries = st.buffer.slice(0, plan.count);
      const storing = this.store(st, p, entries, plan.range, plan.recorded);
      // While ClickHouse works on this batch, decode the next one (CPU here overlaps the insert there).
      let storeSettled = false;
      const outcome = await Promise.all([
        storing.finally(() => {
          storeSettled = true;
        }),
        this.decodeAhead(buffer, plan.count, () => !storeSettled && !this.stopping, true),
      ]).then(([o]) => o);
      if (outcome === 'failed') return;
      if (outcome === 'lost') return;
      this.consumed(st, plan.count);
      this.o.metrics.consumerLag.set({ partition: String(p) }, Math.max(0, highWatermark - plan.range.last - 1));
      try {
        await control.heartbeat();
      } catch {
        return; // rebalancing: the group join resets this partition
      }
    }
  }

  /** The planner of a partition from `from` on: its recorded ranges, and the ids of the messages before `from`. */
  private async newPlanner(p: number, from: number): Promise<PartitionPlanner> {
    const size = this.o.dedupWindow ?? 0;
    const [ranges, recent] = await Promise.all([
      this.o.batchLog.load(p, from),
      size > 0 ? this.o.batchLog.recentMessageIds(p, from, size) : Promise.resolve([]),
    ]);
    if (size === 0) return new PartitionPlanner(ranges);
    const window = new DedupWindow(size);
    for (const r of recent) window.add(r.offset, r.id);
    return new PartitionPlanner(ranges, window);
  }

  private async store(
    st: PartitionState,
    p: number,
    entries: Entry[],
    range: BatchRange,
    recorded: boolean,
  ): Promise<StoreOutcome> {
    const rows = emptyFlattenResult();
    const letters: OutgoingMessage[] = [];
    // Encoded blocks when every message's rows are in the arena; otherwise (a message took the general path with
    // rows) the batch is built from rows, the column-decoded messages decoded again the general way.
    const arena = entries.find((e) => e.mark !== undefined)?.arena;
    const columns = arena !== undefined && this.o.writer.writeEncoded !== undefined && allColumns(entries);
    const marks: ColumnsMark[] = [];
    const skipped = range.skipped ? new Set(range.skipped) : undefined;
    let resentSpans = 0;
    for (const e of entries) {
      if (skipped?.has(e.offset)) {
        resentSpans += e.rows;
        continue;
      }
      if (e.mark) {
        if (columns) {
          marks.push(e.mark);
          continue;
        }
        e.mark = undefined;
        e.decodeRows();
      }
      if (e.error !== undefined || !e.flat) {
        letters.push(undecodableLetter(e.message, e.error ?? 'undecodable'));
        continue;
      }
      appendRows(rows, e.flat);
      if (e.flat.rejected.length > 0 && e.request) {
        for (const l of rejectedSpansLetters(e.message, e.request, e.flat.rejected)) letters.push(l);
      }
    }
    const blocks = columns ? assembleBlocks(arena, marks) : undefined;
    const planner = st.planner!;
    planner.remember(range);
    const logged: Omit<BatchLogEntry, 'state'> = {
      partition: p,
      range,
      messages: entries.length,
      ...(planner.deduplicates ? { messageIds: idsHex(entries) } : {}),
    };
    const join = this.joins;
    try {
      if (!recorded) await this.o.batchLog.record([{ ...logged, state: BATCH_INTENT }]);
    } catch (err) {
      return this.storeFailed(st, p, range, err as Error);
    }
    if (!(await this.stillAssigned(st, p, range, join))) return 'lost';
    try {
      await Promise.all([
        blocks && this.o.writer.writeEncoded
          ? this.o.writer.writeEncoded(blocks, { dedupToken: batchToken(this.o.topic, p, range) })
          : this.o.writer.writeRows(rows, { dedupToken: batchToken(this.o.topic, p, range) }),
        letters.length > 0 ? this.o.deadLetters.send(letters) : Promise.resolve(),
      ]);
    } catch (err) {
      return this.storeFailed(st, p, range, err as Error);
    }
    try {
      await this.o.batchLog.record([{ ...logged, state: BATCH_STORED }]);
    } catch (err) {
      // The rows are acknowledged: committing is safe; a replay would only rely on the dedup tokens.
      this.log(`marking ${range.first}-${range.last} stored failed (committing anyway): ${(err as Error).message}`);
    }
    for (const r of rows.rejected) this.o.metrics.spansRejected.inc({ reason: r.reason });
    if (skipped) {
      this.o.metrics.resentMessages.inc({}, skipped.size);
      this.o.metrics.resentSpans.inc({}, resentSpans);
      this.log(`${this.o.topic}[${p}] ${range.first}-${range.last}: left out ${skipped.size} re-sent message(s)`);
    }
    const lettersByReason = new Map<string, number>();
    for (const l of letters) lettersByReason.set(reasonOf(l), (lettersByReason.get(reasonOf(l)) ?? 0) + 1);
    for (const [reason, n] of lettersByReason) {
      this.o.metrics.deadLetters.inc({ reason }, n);
      this.deadLetterLog.record(reason, n);
    }
    if (!(await this.commit(st, p, range, entries))) return 'lost';
    this.o.metrics.batches.inc();
    st.backoffMs = 0;
    return 'stored';
  }

  private storeFailed(st: PartitionState, p: number, range: BatchRange, err: Error): StoreOutcome {
    this.o.metrics.insertFailures.inc();
    this.fail(st, p, range.first, `storing ${this.o.topic}[${p}] ${range.first}-${range.last} failed: ${err.message}`);
    return 'failed';
  }

  /**
   * Between INTENT and STORE: does the group still give this member the partition? A member the group dropped (its
   * process stalled past its session: a long pause, a stopped VM) keeps going until its next heartbeat, and its rows
   * would double those the partition's new owner stores under ranges cut differently. The
   * coordinator refuses it once a generation without it exists, and an INTENT recorded before a yes is read by that
   * new owner, which replays the same range with the same token (docs/exactly-once.md, "Rebalance").
   */
  private async stillAssigned(st: PartitionState, p: number, range: BatchRange, join: number): Promise<boolean> {
    // A group join during INTENT reset the partition: Kafka hands it out again from the committed offset.
    if (this.joins !== join) return false;
    try {
      await this.o.consumer.confirmAssigned(p, String(range.first));
    } catch (err) {
      this.o.metrics.fencedBatches.inc();
      this.fail(
        st,
        p,
        range.first,
        `${this.o.topic}[${p}] ${range.first}-${range.last} not stored yet: the group coordinator did not confirm this member holds the partition (${(err as Error).message})`,
      );
      return false;
    }
    return this.joins === join;
  }

  /**
   * Commits `range.last + 1` (`entries`: the range's messages, from its first). False when the partition was lost
   * (rebalance): its new owner replays the range.
   */
  private async commit(st: PartitionState, p: number, range: BatchRange, entries: readonly Entry[]): Promise<boolean> {
    try {
      await this.o.consumer.commit(p, String(range.last + 1));
      st.planner?.done(range, entries);
      return true;
    } catch (err) {
      this.log(
        `commit of ${this.o.topic}[${p}] at ${range.last + 1} failed (partition lost?): ${(err as Error).message}`,
      );
      st.planner = undefined;
      st.buffer = [];
      st.arena = this.newArena();
      // The client fetches on from what it handed over, not from the commit: without this seek a member that
      // stays in its generation (a coordinator back within the session) would plan past the dropped buffer.
      this.o.consumer.seek(p, String(range.last + 1));
      st.next = range.last + 1;
      return false;
    }
  }

  /** Seek back to `offset`, pause the partition, resume after the backoff. */
  private fail(st: PartitionState, p: number, offset: number, why: string): void {
    st.backoffMs = st.backoffMs === 0 ? this.o.backoff.initialMs : Math.min(st.backoffMs * 2, this.o.backoff.maxMs);
    this.log(`${why}; retrying in ${st.backoffMs} ms`);
    st.buffer = [];
    st.arena = this.newArena();
    this.o.consumer.seek(p, String(offset));
    st.next = offset;
    this.o.consumer.pause([p]);
    this.clearRetry(st);
    st.retryTimer = this.timers.setTimeout(() => {
      st.retryTimer = undefined;
      if (!this.stopping) this.o.consumer.resume([p]);
    }, st.backoffMs);
  }

  private clearRetry(st: PartitionState): void {
    if (st.retryTimer !== undefined) this.timers.clearTimeout(st.retryTimer);
    st.retryTimer = undefined;
  }
}
