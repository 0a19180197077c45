/**
 * Which offset range the next batch of one partition covers (docs/exactly-once.md, PLAN step). Pure: given the
 * buffered messages and the recorded ranges, it answers "store [first, last]", "already stored, skip to last+1" or
 * "wait for more messages". A recorded range is always re-used as is, so a replay gets the same token, and the same
 * re-sent messages left out (`range.skipped`); a new range's re-sends are found with the partition's DedupWindow.
 */
import type { BatchRange } from './batch-log.ts';
import type { DedupWindow } from './dedup-window.ts';

export interface PlanEntry {
  offset: number;
  /** Kafka timestamp (ms). */
  timestamp: number;
  /** Hash of the message value (computed on demand: only a range's first message needs it). */
  hash(): string;
  /** The message's id (platform/kafka/message-id.ts), read only when re-sends are looked for. */
  id(): string;
  /** Rows the message flattens to (0 for an undecodable one), and its size in bytes. */
  rows: number;
  size: number;
}

export interface PlanLimits {
  maxRows: number;
  maxBytes: number;
}

export type Plan =
  /** A recorded range is not fully buffered yet: fetch more before storing or skipping it. */
  | { kind: 'wait'; range: BatchRange }
  /** Recorded and stored already: commit `range.last + 1`, drop the first `count` entries. */
  | { kind: 'skip'; range: BatchRange; count: number }
  /** Store the first `count` entries as `range`; `recorded` when the range is already in the batch log. */
  | { kind: 'store'; range: BatchRange; count: number; recorded: boolean };

export class PartitionPlanner {
  private ranges: BatchRange[];

  /**
   * `window`: the ids of the partition's messages before the first one to plan (absent: re-sends are not looked
   * for, and new ranges leave nothing out).
   */
  constructor(
    recorded: readonly BatchRange[],
    private readonly window?: DedupWindow,
  ) {
    this.ranges = [...recorded].sort((a, b) => a.first - b.first);
  }

  /** Known ranges from `from` on (for tests and diagnostics). */
  known(): readonly BatchRange[] {
    return this.ranges;
  }

  /**
   * The next batch for `entries` (buffered in offset order, non-empty). `highWatermark`: the partition's log end,
   * so a recorded range the log no longer reaches (truncated log) is not waited for forever.
   */
  next(entries: readonly PlanEntry[], limits: PlanLimits, highWatermark: number): Plan {
    const head = entries[0];
    if (!head) throw new Error('planning needs at least one message');
    const first = head.offset;
    this.ranges = this.ranges.filter((r) => r.last >= first);
    const r0 = this.ranges[0];
    let limit = Number.POSITIVE_INFINITY;
    if (r0 && r0.first === first) {
      const sameLog = r0.firstTimestamp === head.timestamp && r0.firstHash === head.hash() && r0.last < highWatermark;
      if (sameLog) {
        // Stored or not, the whole range first: skipping part of it forgets the range, and its tail, fetched next,
        // would be stored again as a new range.
        if (entries[entries.length - 1]!.offset < r0.last) return { kind: 'wait', range: r0 };
        const count = countUpTo(entries, r0.last);
        if (r0.stored) return { kind: 'skip', range: r0, count };
        return { kind: 'store', range: r0, count, recorded: true };
      }
      // Another log under the same name (topic re-created, log truncated): its ranges say nothing about this one.
      this.ranges = [];
    } else if (r0 && r0.first < first) {
      // Offsets were reset into the middle of a recorded range: its tail is stored again (documented limit).
      this.ranges.shift();
      const next = this.ranges[0];
      if (next) limit = next.first;
    } else if (r0) {
      limit = r0.first;
    }

    let rows = 0;
    let bytes = 0;
    let count = 0;
    for (const e of entries) {
      if (e.offset >= limit) break;
      if (count > 0 && (rows + e.rows > limits.maxRows || bytes + e.size > limits.maxBytes)) break;
      rows += e.rows;
      bytes += e.size;
      count++;
    }
    const last = entries[count - 1]!.offset;
    const range: BatchRange = { first, last, firstTimestamp: head.timestamp, firstHash: head.hash(), stored: false };
    const skipped = this.resent(entries, count);
    if (skipped.length > 0) range.skipped = skipped;
    return { kind: 'store', range, count, recorded: false };
  }

  /** Offsets among the first `count` entries that re-send an earlier message (window, or earlier in the range). */
  private resent(entries: readonly PlanEntry[], count: number): number[] {
    const window = this.window;
    const skipped: number[] = [];
    if (!window) return skipped;
    const inRange = new Map<string, number>();
    for (let i = 0; i < count; i++) {
      const e = entries[i]!;
      const id = e.id();
      const before = inRange.get(id) ?? window.earlier(id, e.offset);
      if (before !== undefined && e.offset - before <= window.size) skipped.push(e.offset);
      inRange.set(id, e.offset);
    }
    return skipped;
  }

  /** Remembers a range about to be recorded, so a retry after a failure re-uses it even if its record was lost. */
  remember(range: BatchRange): void {
    if (this.ranges.some((r) => r.first === range.first)) return;
    this.ranges.push(range);
    this.ranges.sort((a, b) => a.first - b.first);
  }

  /**
   * The range is stored and committed: forget it and everything before, and remember the ids of its messages
   * (`entries`, from its first) for the re-sends of the next ranges.
   */
  done(range: BatchRange, entries: readonly PlanEntry[]): void {
    this.ranges = this.ranges.filter((r) => r.first > range.last);
    if (!this.window) return;
    for (const e of entries) {
      if (e.offset > range.last) break;
      if (e.offset >= range.first) this.window.add(e.offset, e.id());
    }
  }

  /** True when re-sends are looked for (the batch log then records the ranges' message ids). */
  get deduplicates(): boolean {
    return this.window !== undefined;
  }
}

function countUpTo(entries: readonly PlanEntry[], last: number): number {
  let n = 0;
  while (n < entries.length && entries[n]!.offset <= last) n++;
  return n;
}
