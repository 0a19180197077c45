/**
 * Waiting in tests and tools: on a condition, never on a guess of how long something takes. `sleep` is for pacing
 * (a load's rate, the gap between two polls, a fault's planned duration), not for letting something happen: a test
 * that must show that nothing happened waits until the system has provably handled a later marker instead.
 */
import { setTimeout as delay } from 'node:timers/promises';

/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return delay(ms);
}

/** What a check returns once it holds. */
export type Truthy<T> = Exclude<T, false | 0 | 0n | '' | null | undefined>;

export interface UntilOptions {
  /** How long to keep trying (default 30 s). */
  timeoutMs?: number;
  /** The pause between two checks (default 50 ms). */
  everyMs?: number;
  /** What the last check saw, for the failure message. */
  describe?: () => string | Promise<string>;
  /** A check that throws counts as "not yet" (a cluster still electing its leaders answers with errors). */
  ignoreErrors?: boolean;
}

/**
 * Polls `check` until it returns something truthy, and returns that; fails naming `what` (and what the last check
 * saw) after `timeoutMs`. A check that throws fails at once, unless `ignoreErrors`.
 */
export async function until<T>(
  what: string,
  check: () => T | Promise<T>,
  { timeoutMs = 30_000, everyMs = 50, describe, ignoreErrors = false }: UntilOptions = {},
): Promise<Truthy<T>> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    let value: T | undefined;
    try {
      value = await check();
    } catch (err) {
      if (!ignoreErrors) throw err;
      lastError = err;
    }
    if (value) return value as Truthy<T>;
    if (Date.now() >= deadline) {
      const seen = describe ? `; last seen: ${await describe()}` : '';
      const error = lastError ? `; last error: ${(lastError as Error).message ?? String(lastError)}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting until ${what}${seen}${error}`);
    }
    await sleep(Math.min(everyMs, Math.max(1, deadline - Date.now())));
  }
}

/**
 * Yields to the event loop until `condition` holds, for fakes in unit tests: no timer, so fake clocks and quick
 * tests alike; fails naming `what` after `turns` turns.
 */
export async function untilTurn(what: string, condition: () => boolean, turns = 10_000): Promise<void> {
  for (let i = 0; i < turns; i++) {
    if (condition()) return;
    await new Promise((r) => setImmediate(r));
  }
  throw new Error(`not reached within ${turns} event-loop turns: ${what}`);
}
