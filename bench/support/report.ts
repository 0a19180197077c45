/**
 * The one machine-readable line every benchmark prints last, read by `npm run bench` (bench/run-all.ts):
 *   BENCH_JSON {"bench":"ingest-throughput","figures":[...],"load":[2.1,2.3,2.4],"cores":2}
 * Human-readable lines stay as they are; this line is the contract between a bench and the runner.
 */
import { availableParallelism, loadavg } from 'node:os';

export const BENCH_JSON_PREFIX = 'BENCH_JSON ';

export interface BenchFigure {
  /** What was measured, e.g. "rows/s from a pre-filled topic". */
  name: string;
  /** The median over the bench's runs. */
  value: number;
  unit: string;
  /** Spread over the runs (omit for a single run). */
  min?: number;
  max?: number;
  runs?: number;
  /** The named baseline measured in the same run, and value / baseline. */
  baseline?: { name: string; value: number };
  ratio?: number;
  /** The target in words ("≥ 100,000 rows/s") and whether this run met it. */
  target?: string;
  met?: boolean;
}

export interface BenchReport {
  bench: string;
  figures: BenchFigure[];
}

/** Prints the BENCH_JSON line (with the machine's load average and core count at the end of the bench). */
export function printBenchReport(report: BenchReport): void {
  const line = { ...report, load: loadavg().map((x) => Math.round(x * 100) / 100), cores: availableParallelism() };
  console.log(`${BENCH_JSON_PREFIX}${JSON.stringify(line)}`);
}

/** Median, min and max of samples, for a BenchFigure. */
export function spread(samples: readonly number[]): { value: number; min: number; max: number; runs: number } {
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const value = s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
  return { value, min: s[0] as number, max: s[s.length - 1] as number, runs: s.length };
}
