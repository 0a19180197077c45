/**
 * The writer's hook: after a batch is stored, `record(rows, { batchId })` appends its rows to the Merkle log of
 * their tenant (one leaf per row, per (tenant, log) tree: log/appender.ts), tiles and entries in one insert. Call it
 * after ClickHouse acknowledged the rows and before the batch is acknowledged upstream (Kafka offset commit, HTTP
 * 200): if it throws, the batch is retried, its rows deduplicate, and they are logged on the retry. A crash between
 * the two leaves rows without a leaf, which verify reports as added: never silently covered.
 *
 * The log is the whole record: the hourly digest chain of row_digests (chain.ts) is no longer written, it is only
 * read by verify for the rows it covers (audit/README.md, "Why the chain went").
 */
import { randomUUID } from 'node:crypto';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { type DigestConfig, DigestConfigSchema, defaultDigestConfig } from './config.ts';
import { computeOffMainThread } from './digest-offload.ts';
import {
  type ComputedRuns,
  countsOf,
  type DigestSource,
  type RowCounts,
  runsOf,
  type StoredBatch,
} from './digest-source.ts';
import { digestEntries, type StoredRows } from './entries.ts';
import { LogAppender, type LoggedRange } from './log/appender.ts';
import { defaultLogConfig, type LogConfig } from './log/config.ts';
import { kafkaWitness } from './log/kafka-witness.ts';
import { LogStore } from './log/store.ts';
import { fileWitness, httpWitness, type WitnessSink } from './log/witness.ts';
import type { StoredBlocks } from './native-entries.ts';

export type { DigestSource, LoggedRange, StoredBatch, StoredBlocks };
export { digestEntries, type StoredRows };

export interface DigestRecorder {
  /**
   * Logs the rows ClickHouse just stored, given as row objects or as the Native blocks inserted (the same leaves
   * either way). Resolves once the log's insert is acknowledged, with where each tenant's rows went.
   */
  record(stored: StoredBatch, batch?: { batchId?: string; prepared?: PreparedRuns }): Promise<LoggedRange[]>;
  /**
   * Starts hashing a batch's rows off the main thread (call it before the insert, so the hashing overlaps the
   * round trip) and pass the result to `record` as `prepared`. `source` must hold exactly the rows `record` gets.
   */
  prepare?(source: DigestSource): PreparedRuns;
  /** Signs and publishes a checkpoint of every log that grew since its last one (at shutdown; tests). */
  flushCheckpoints?(): Promise<void>;
}

/** Leaves computed ahead of `record`; `undefined` = compute them in `record` (same bytes). */
export type PreparedRuns = Promise<ComputedRuns | undefined>;

export interface DigestRecorderOptions extends Partial<DigestConfig> {
  database: string;
  /** Clock (unix ms); tests inject one to place batches before or after their hour closed. */
  now?: () => number;
  /**
   * Hash rows on the digest worker thread (audit/README.md). Default: `TOOLTRAIL_DIGEST_OFFLOAD=1`, else off. Off
   * by default because, measured on the 2 shared cores, it did not raise ingest throughput (no core was idle); it
   * only helps where a core is.
   */
  offload?: boolean;
  /**
   * The Merkle log (audit/log/config.ts; `digestConfigFromEnv` gives one): signing key, cadence, witnesses.
   * Default: `defaultLogConfig()` (logged, unsigned). `enabled: false` records nothing.
   */
  log?: LogConfig | undefined;
}

interface ChainState {
  tail: Promise<unknown>;
  /** The Merkle log of this chain, one tree per tenant; undefined when the log is off. */
  log: LogAppender | undefined;
}

// One state per (database, chain) in the process: two writers of one process share the log instead of forking it.
const chains = new Map<string, ChainState>();

export function createDigestRecorder(ch: ClickHouseClient, options: DigestRecorderOptions): DigestRecorder {
  const config = DigestConfigSchema.parse({ ...defaultDigestConfig(), ...stripUndefined(options) });
  const database = options.database;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database))
    throw new Error('digest recorder: database must be a plain identifier');
  const now = options.now ?? Date.now;
  const offload = options.offload ?? process.env.TOOLTRAIL_DIGEST_OFFLOAD === '1';
  const logConfig = options.log ?? defaultLogConfig();
  const stateKey = `${database}\u0000${config.chain}`;
  const state: ChainState = chains.get(stateKey) ?? { tail: Promise.resolve(), log: undefined };
  chains.set(stateKey, state);
  state.log = logConfig.enabled ? logAppender(ch, database, config.chain, logConfig) : undefined;

  async function recordNow(stored: StoredBatch, batchId: string, prepared?: PreparedRuns): Promise<LoggedRange[]> {
    const log = state.log;
    if (!log) return [];
    const computed = prepared ? await prepared : undefined;
    // Leaves from the worker only when they cover exactly these rows; otherwise the same work, here.
    const runs = computed && sameCounts(computed.counts, countsOf(stored)) ? computed.runs : runsOf(stored).runs;
    if (runs.size === 0) return [];
    return log.append({ runs, batchId, recordedMs: now(), graceSeconds: config.graceSeconds });
  }

  return {
    prepare(source) {
      return offload && state.log ? computeOffMainThread(source) : Promise.resolve(undefined);
    },
    record(stored, batch = {}) {
      const batchId = batch.batchId || `unnamed:${randomUUID()}`;
      // Serialized per log: each batch's leaves follow the ones stored before it.
      const run = state.tail.then(() => recordNow(stored, batchId, batch.prepared));
      state.tail = run.catch(() => undefined);
      return run;
    },
    flushCheckpoints() {
      const run = state.tail.then(() => state.log?.flush(now()));
      state.tail = run.catch(() => undefined);
      return run;
    },
  };
}

function logAppender(ch: ClickHouseClient, database: string, chain: string, c: LogConfig): LogAppender {
  const witnesses: WitnessSink[] = [
    ...(c.witnessDir ? [fileWitness(c.witnessDir)] : []),
    ...c.witnessUrls.map((u) => httpWitness(u)),
    ...(c.witnessKafka ? [kafkaWitness(c.witnessKafka)] : []),
  ];
  return new LogAppender({
    store: new LogStore(ch, database),
    log: chain,
    origin: c.origin,
    signer: c.signer,
    everyRows: c.everyRows,
    everySeconds: c.everySeconds,
    witnesses,
    onWitnessFailure: (failures, id) => {
      for (const f of failures)
        console.error(
          `tooltrail audit: witness ${f.sink} did not take the checkpoint of ${id.tenant}/${id.log}: ${f.error}`,
        );
    },
  });
}

function sameCounts(a: RowCounts, b: RowCounts): boolean {
  return a.toolCalls === b.toolCalls && a.warnings === b.warnings && a.spans === b.spans;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(
    Object.entries(o).filter(
      ([k, v]) => v !== undefined && k !== 'database' && k !== 'now' && k !== 'offload' && k !== 'log',
    ),
  ) as Partial<T>;
}
