/** Durations as people type them (`90s`, `15m`, `24h`, `90d`, `2w`), for CLI flags and environment keys. */

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3_600, d: 86_400, w: 604_800 };
const DURATION_RE = /^(\d+(?:\.\d+)?)\s*([smhdw])$/;

/** Seconds in a duration like `24h`; a bare number is seconds. Throws a message naming the bad value. */
export function parseDurationSeconds(text: string): number {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const m = DURATION_RE.exec(t);
  if (!m) throw new Error(`invalid duration "${text}": use a number and a unit s, m, h, d or w (e.g. 24h, 90d)`);
  return Math.round(Number(m[1]) * (UNIT_SECONDS[m[2] as string] as number));
}

/** The shortest exact rendering (`86400` -> `1d`), for messages and annotations. */
export function formatDuration(seconds: number): string {
  for (const unit of ['w', 'd', 'h', 'm'] as const) {
    const size = UNIT_SECONDS[unit] as number;
    if (seconds >= size && seconds % size === 0) return `${seconds / size}${unit}`;
  }
  return `${seconds}s`;
}
