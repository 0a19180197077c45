/**
 * Every benchmark `npm run bench` runs, in order, with the arguments of a full run and of a --quick one (each
 * bench's own size flags). Cheap in-process benches first, the ones that load Kafka and ClickHouse after.
 */
export interface BenchSpec {
  /** The name used by --only and in the table (the file under bench/ without .ts). */
  name: string;
  /** Path from the repository root. */
  file: string;
  full: string[];
  quick: string[];
  /** Delivered by another issue: a missing file or a failure shows as "not available" and fails nothing. */
  optional?: boolean;
}

export const BENCHES: readonly BenchSpec[] = [
  {
    name: 'instrumentation-overhead',
    file: 'bench/instrumentation-overhead.ts',
    // Positional: rounds, calls per round.
    full: [],
    quick: ['8', '500'],
  },
  {
    name: 'digest-overhead',
    file: 'bench/digest-overhead.ts',
    // Fixed size (20,000 rows x 7 runs): already a few seconds.
    full: [],
    quick: [],
  },
  {
    name: 'mcp-proxy-latency',
    file: 'bench/mcp-proxy-latency.ts',
    // Full: 6 rounds x 500 calls each way, then 100,000 calls for the memory figure.
    full: [],
    quick: ['--rounds', '2', '--calls', '200', '--memory-calls', '5000'],
  },
  {
    name: 'collector-throughput',
    file: 'bench/collector-throughput.ts',
    full: [],
    quick: ['--seconds', '3', '--rounds', '1'],
  },
  {
    name: 'ingest-throughput',
    file: 'bench/ingest-throughput.ts',
    full: [],
    quick: ['--rows', '40000', '--rounds', '1', '--seconds', '5'],
  },
  {
    name: 'detector-evaluation',
    file: 'bench/detector-evaluation.ts',
    full: [],
    quick: ['--sessions', '300', '--rows', '500000', '--runs', '3'],
  },
  {
    name: 'anchor/compare',
    file: 'bench/anchor/compare.ts',
    full: [],
    quick: ['--spans', '40000', '--rounds', '1', '--warmup', '5000'],
    optional: true,
  },
];

/** The benches named by --only (comma-separated); unknown names are an error listing the known ones. */
export function selectBenches(only: string | undefined, all: readonly BenchSpec[] = BENCHES): BenchSpec[] {
  if (!only) return [...all];
  const names = only
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !all.some((b) => b.name === n));
  if (unknown.length) {
    throw new Error(`--only: unknown bench ${unknown.join(', ')} (known: ${all.map((b) => b.name).join(', ')})`);
  }
  return all.filter((b) => names.includes(b.name));
}
