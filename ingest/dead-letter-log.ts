/**
 * One log line per dead-letter reason per interval (a minute by default): the first letter of a reason is said at
 * once, later ones are counted and said together when the interval is over, so a flood of letters is visible
 * without flooding the log, and no count is left unsaid (`close()` says what is pending).
 */
import { DEAD_LETTER_CAUSES, isDeadLetterReason } from './dead-letter.ts';

export const DEAD_LETTER_LOG_INTERVAL_MS = 60_000;

export interface LogTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface DeadLetterLogOptions {
  log: (line: string) => void;
  /** The dead-letter topic, named in each line. */
  topic: string;
  intervalMs?: number;
  now?: () => number;
  timers: LogTimers;
}

interface ReasonState {
  lastLineAt: number;
  pending: number;
  timer: unknown;
}

export class DeadLetterLog {
  private readonly states = new Map<string, ReasonState>();
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(private readonly o: DeadLetterLogOptions) {
    this.intervalMs = o.intervalMs ?? DEAD_LETTER_LOG_INTERVAL_MS;
    this.now = o.now ?? Date.now;
  }

  /** `count` more messages dead-lettered for `reason` (after the dead-letter topic acknowledged them). */
  record(reason: string, count: number): void {
    if (count <= 0) return;
    const now = this.now();
    const st = this.states.get(reason);
    if (!st || (st.timer === undefined && now - st.lastLineAt >= this.intervalMs)) {
      this.say(reason, count, st ? now - st.lastLineAt : undefined);
      this.states.set(reason, { lastLineAt: now, pending: 0, timer: undefined });
      return;
    }
    st.pending += count;
    if (st.timer === undefined) {
      st.timer = this.o.timers.setTimeout(() => this.flush(reason), st.lastLineAt + this.intervalMs - now);
    }
  }

  /** Says every pending count now and cancels the timers (shutdown). */
  close(): void {
    for (const [reason, st] of this.states) {
      if (st.timer !== undefined) this.o.timers.clearTimeout(st.timer);
      st.timer = undefined;
      if (st.pending > 0) this.flush(reason);
    }
  }

  private flush(reason: string): void {
    const st = this.states.get(reason);
    if (!st) return;
    st.timer = undefined;
    if (st.pending === 0) return;
    const now = this.now();
    this.say(reason, st.pending, now - st.lastLineAt);
    st.pending = 0;
    st.lastLineAt = now;
  }

  private say(reason: string, count: number, sinceMs: number | undefined): void {
    const cause = isDeadLetterReason(reason) ? DEAD_LETTER_CAUSES[reason] : 'see the letters';
    const what = `${count} message${count === 1 ? '' : 's'}`;
    const when = sinceMs === undefined ? '' : ` in the last ${Math.round(sinceMs / 1000)} s`;
    try {
      this.o.log(
        `dead-lettered ${what} to ${this.o.topic}${when}: ${reason}: ${cause}; \`tooltrail dlq list --reason ${reason}\` (at most one line per reason per ${Math.round(this.intervalMs / 1000)} s)`,
      );
    } catch {
      // a broken logger must not break the loop
    }
  }
}
