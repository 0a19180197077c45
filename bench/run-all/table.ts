/**
 * The pure half of `npm run bench`: reading a bench's BENCH_JSON line out of its stdout, deciding whether the
 * bench passed, and laying the figures of all benches out as one text table. No I/O here, so it is unit-tested.
 */
import { z } from 'zod';
import { BENCH_JSON_PREFIX } from '../support/report.ts';

const Figure = z.object({
  name: z.string(),
  value: z.number(),
  unit: z.string(),
  min: z.number().optional(),
  max: z.number().optional(),
  runs: z.number().optional(),
  baseline: z.object({ name: z.string(), value: z.number() }).optional(),
  ratio: z.number().optional(),
  target: z.string().optional(),
  met: z.boolean().optional(),
});

/** The line as printed by printBenchReport: the report plus the machine's load and cores at the end. */
const Line = z.object({
  bench: z.string(),
  figures: z.array(Figure),
  load: z.array(z.number()).optional(),
  cores: z.number().optional(),
});
export type ParsedReport = z.infer<typeof Line>;

export type ParseResult = { ok: true; report: ParsedReport } | { ok: false; reason: string };

/**
 * The report of a bench's stdout: its last BENCH_JSON line wins (a bench may print an early one, or a child may
 * print its own); a missing or malformed line is a reason, not an exception.
 */
export function parseBenchOutput(stdout: string): ParseResult {
  const lines = stdout.split(/\r?\n/);
  let last: string | undefined;
  for (const line of lines) if (line.startsWith(BENCH_JSON_PREFIX)) last = line;
  if (last === undefined) return { ok: false, reason: 'no BENCH_JSON line' };
  let json: unknown;
  try {
    json = JSON.parse(last.slice(BENCH_JSON_PREFIX.length));
  } catch (e) {
    return { ok: false, reason: `malformed BENCH_JSON line: ${(e as Error).message}` };
  }
  const parsed = Line.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return {
      ok: false,
      reason: `malformed BENCH_JSON line: ${issue ? `${issue.path.join('.') || '(root)'}: ${issue.message}` : 'invalid'}`,
    };
  }
  return { ok: true, report: parsed.data };
}

/** What one child run of a bench left behind, as the runner saw it. */
export interface BenchRun {
  bench: string;
  /** null when the process was killed by a signal. */
  exitCode: number | null;
  signal?: string | null;
  stdout: string;
  /** The last non-empty stderr line, for the FAILED reason. */
  lastStderrLine?: string;
  durationMs: number;
  log?: string;
}

export type BenchOutcome =
  | { bench: string; status: 'ok'; report: ParsedReport; durationMs: number; log?: string }
  | { bench: string; status: 'failed'; reason: string; durationMs: number; log?: string }
  | { bench: string; status: 'unavailable'; reason: string };

/**
 * A bench passed only if it exited 0 and its last BENCH_JSON line is well-formed. An optional bench (one another
 * issue delivers) that fails is shown as not available instead of failing the run.
 */
export function benchOutcome(run: BenchRun, optional = false): BenchOutcome {
  const outcome = requiredOutcome(run);
  if (optional && outcome.status === 'failed') {
    return { bench: run.bench, status: 'unavailable', reason: `failed (${outcome.reason})` };
  }
  return outcome;
}

function requiredOutcome(run: BenchRun): BenchOutcome {
  const common = { bench: run.bench, durationMs: run.durationMs, ...(run.log ? { log: run.log } : {}) };
  if (run.exitCode !== 0) {
    const how = run.exitCode === null ? `killed by ${run.signal ?? 'a signal'}` : `exit code ${run.exitCode}`;
    const stderr = run.lastStderrLine ? `: ${run.lastStderrLine}` : '';
    return { ...common, status: 'failed', reason: `${how}${stderr}` };
  }
  const parsed = parseBenchOutput(run.stdout);
  if (!parsed.ok) return { ...common, status: 'failed', reason: parsed.reason };
  return { ...common, status: 'ok', report: parsed.report };
}

/** The last non-empty line of a text (stderr tail), trimmed; undefined if there is none. */
export function lastLine(text: string): string | undefined {
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  for (let i = lines.length - 1; i >= 0; i--) if (lines[i]) return lines[i];
  return undefined;
}

/** Numbers as a reader compares them: grouped integers from 1,000 up, three significant digits below. */
export function formatNumber(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  const abs = Math.abs(x);
  if (abs >= 1000) return Math.round(x).toLocaleString('en-US');
  if (abs === 0) return '0';
  return Number(x.toPrecision(3)).toString();
}

/** Ratios with two decimals, so one just over a target (1.304 against ≤ 1.3) does not read as 1.3. */
export function formatRatio(x: number): string {
  return Math.abs(x) >= 0.1 || x === 0 ? `${x.toFixed(2)}x` : `${Number(x.toPrecision(2))}x`;
}

export const TABLE_HEADER = ['bench', 'figure', 'median', 'min–max', 'unit', 'baseline', 'ratio', 'target', 'met'];

/** One row per figure; a failed or unavailable bench is one row saying so, with its reason. */
export function tableRows(outcomes: readonly BenchOutcome[]): string[][] {
  const rows: string[][] = [];
  for (const o of outcomes) {
    if (o.status === 'failed') rows.push([o.bench, `FAILED: ${o.reason}`]);
    else if (o.status === 'unavailable') rows.push([o.bench, `not available: ${o.reason}`]);
    else if (o.report.figures.length === 0) rows.push([o.bench, '(no figures)']);
    else {
      for (const f of o.report.figures) {
        rows.push([
          o.bench,
          f.name,
          formatNumber(f.value),
          f.min !== undefined && f.max !== undefined && f.runs !== 1
            ? `${formatNumber(f.min)}–${formatNumber(f.max)}${f.runs ? ` (${f.runs})` : ''}`
            : '',
          f.unit,
          f.baseline ? `${f.baseline.name} ${formatNumber(f.baseline.value)}` : '',
          f.ratio !== undefined ? formatRatio(f.ratio) : '',
          f.target ?? '',
          f.met === undefined ? '' : f.met ? 'yes' : 'NO',
        ]);
      }
    }
  }
  return rows;
}

/**
 * The table as text: columns padded to their widest cell. A two-cell row (a failure) is not padded, so a long
 * reason does not widen the figure column for everyone.
 */
export function formatTable(outcomes: readonly BenchOutcome[]): string {
  const rows = tableRows(outcomes);
  const full = [TABLE_HEADER, ...rows.filter((r) => r.length === TABLE_HEADER.length)];
  const widths = TABLE_HEADER.map((_, i) =>
    Math.max(...(i === 0 ? [TABLE_HEADER, ...rows] : full).map((r) => (r[i] ?? '').length)),
  );
  const numeric = new Set([2, 3, 6]);
  const fmt = (r: string[]) =>
    r.length < TABLE_HEADER.length
      ? `${(r[0] ?? '').padEnd(widths[0] ?? 0)}  ${r.slice(1).join('  ')}`
      : r
          .map((c, i) => (numeric.has(i) ? c.padStart(widths[i] ?? 0) : c.padEnd(widths[i] ?? 0)))
          .join('  ')
          .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [fmt(TABLE_HEADER), rule, ...rows.map(fmt)].join('\n');
}

/** The exit code of the whole run: non-zero if any bench that was run failed (an unavailable one is not run). */
export function runExitCode(outcomes: readonly BenchOutcome[]): number {
  return outcomes.some((o) => o.status === 'failed') ? 1 : 0;
}
