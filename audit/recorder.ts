/**
 * The writer's hook: after a batch is stored, `record(rows, { batchId })` writes one digest record per
 * (tenant, hour) the batch touched, chained per (tenant, chain). Call it after ClickHouse acknowledged the rows and
 * before the batch is acknowledged upstream (Kafka offset commit, HTTP 200): if it throws, the batch is retried,
 * its rows deduplicate, and the digest is recorded on the retry. A crash between the two leaves rows without a
 * digest, which verify reports as added: never silently covered.
 */
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { ClickHouseClient } from '../platform/clickhouse.ts';
import { CANONICAL_VERSION } from './canonical.ts';
import { type DigestRecord, sealRecord } from './chain.ts';
import { type DigestConfig, DigestConfigSchema, defaultDigestConfig } from './config.ts';
import { computeOffMainThread } from './digest-offload.ts';
import {
  type ComputedEntries,
  countsOf,
  type DigestSource,
  entriesOf,
  type RowCounts,
  type StoredBatch,
} from './digest-source.ts';
import { digestEntries, type StoredRows } from './entries.ts';
import { LogAppender } from './log/appender.ts';
import type { LogConfig } from './log/config.ts';
import { kafkaWitness } from './log/kafka-witness.ts';
import { LogStore } from './log/store.ts';
import { fileWitness, httpWitness, type WitnessSink } from './log/witness.ts';
import type { StoredBlocks } from './native-entries.ts';
import { sqlFile } from './sql.ts';

export type { DigestSource, StoredBatch, StoredBlocks };
export { digestEntries, type StoredRows };

export interface DigestRecorder {
  /**
   * Records the digests of rows ClickHouse just stored, given as row objects or as the Native blocks inserted (the
   * same entries either way). Resolves once the records are stored too.
   */
  record(stored: StoredBatch, batch?: { batchId?: string; prepared?: PreparedEntries }): Promise<DigestRecord[]>;
  /**
   * Starts hashing a batch's rows off the main thread (call it before the insert, so the hashing overlaps the
   * round trip) and pass the result to `record` as `prepared`. `source` must hold exactly the rows `record` gets.
   */
  prepare?(source: DigestSource): PreparedEntries;
  /** Signs and publishes a checkpoint of every log that grew since its last one (at shutdown; tests). */
  flushCheckpoints?(): Promise<void>;
}

/** Entries computed ahead of `record`; `undefined` = compute them in `record` (same bytes). */
export type PreparedEntries = Promise<ComputedEntries | undefined>;

export interface DigestRecorderOptions extends Partial<DigestConfig> {
  database: string;
  /** Clock (unix ms); tests inject one to place batches before or after their hour closed. */
  now?: () => number;
  /**
   * Hash rows on the digest worker thread (audit/README.md). Default: `TOOLTRAIL_DIGEST_OFFLOAD=1`, else off. Off
   * by default because, measured on the 2 shared cores, it did not raise ingest throughput (it adds ~10 us/row of
   * CPU re-flattening on the worker, and no core was idle); it only helps where a core is.
   */
  offload?: boolean;
  /** The Merkle log (audit/log/config.ts; `digestConfigFromEnv` gives one, on by default); undefined = none. */
  log?: LogConfig | undefined;
}

interface ChainState {
  tail: Promise<unknown>;
  heads: Map<string, { seq: number; hash: string }>;
  /** The Merkle log of this chain, one tree per tenant; undefined when the log is off. */
  log: LogAppender | undefined;
}

// One state per (database, chain) in the process: two writers of one process share the chain instead of forking it.
const chains = new Map<string, ChainState>();

const HeadRow = z.object({ seq_text: z.string().regex(/^\d+$/), digest_hash: z.string() });

function chTime(ms: number, withMs: boolean): string {
  const iso = new Date(ms).toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, withMs ? 23 : 19)}`;
}

export function createDigestRecorder(ch: ClickHouseClient, options: DigestRecorderOptions): DigestRecorder {
  const config = DigestConfigSchema.parse({ ...defaultDigestConfig(), ...stripUndefined(options) });
  const database = options.database;
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(database))
    throw new Error('digest recorder: database must be a plain identifier');
  const now = options.now ?? Date.now;
  const offload = options.offload ?? process.env.TOOLTRAIL_DIGEST_OFFLOAD === '1';
  const stateKey = `${database}\u0000${config.chain}`;
  const state: ChainState = chains.get(stateKey) ?? { tail: Promise.resolve(), heads: new Map(), log: undefined };
  chains.set(stateKey, state);
  state.log = options.log?.enabled ? logAppender(ch, database, config.chain, options.log) : undefined;

  async function head(tenant: string): Promise<{ seq: number; hash: string }> {
    const cached = state.heads.get(tenant);
    if (cached) return cached;
    const rs = await ch.query({
      query: sqlFile('chainHead'),
      query_params: { db: database, tenant, chain: config.chain },
      format: 'JSONEachRow',
    });
    const rows = (await rs.json<unknown>()).map((r) => HeadRow.parse(r));
    const h = rows[0] ? { seq: Number(rows[0].seq_text), hash: rows[0].digest_hash } : { seq: 0, hash: '' };
    return h;
  }

  async function recordNow(stored: StoredBatch, batchId: string, prepared?: PreparedEntries): Promise<DigestRecord[]> {
    const computed = prepared ? await prepared : undefined;
    // Entries from the worker only when they cover exactly these rows; otherwise the same work, here.
    const byTenant =
      computed && sameCounts(computed.counts, countsOf(stored)) ? computed.entries : entriesOf(stored).entries;
    if (byTenant.size === 0) return [];
    const recordedAt = now();
    const tenants = [...byTenant.keys()].sort();
    // A tenant new to this process: its tree is read back while its chain head is.
    const logLoaded = state.log?.load(tenants);
    logLoaded?.catch(() => undefined);
    const records: DigestRecord[] = [];
    const newHeads = new Map<string, { seq: number; hash: string }>();
    for (const tenant of tenants) {
      let h = await head(tenant);
      const hours = byTenant.get(tenant)!;
      for (const hour of [...hours.keys()].sort((a, b) => a - b)) {
        const record = sealRecord(
          {
            tenant,
            chain: config.chain,
            seq: h.seq + 1,
            hour,
            batch_id: batchId,
            recorded_at_ms: recordedAt,
            backfill: recordedAt >= (hour + 3600 + config.graceSeconds) * 1000,
            canonical_version: CANONICAL_VERSION,
            previous_hash: h.hash,
          },
          hours.get(hour)!,
          config.key,
        );
        records.push(record);
        h = { seq: record.seq, hash: record.digest_hash };
      }
      newHeads.set(tenant, h);
    }
    // The log's nodes and the digest records in parallel, both before `record` resolves (before the batch is
    // acknowledged upstream): if either fails, the batch is retried and both are written again (audit/README.md).
    const log = state.log;
    const logged = log
      ? (logLoaded ?? Promise.resolve()).then(() =>
          log.appendAll(new Map(tenants.map((t) => [t, records.filter((r) => r.tenant === t)])), recordedAt),
        )
      : Promise.resolve();
    const settled = await Promise.allSettled([logged, insertRecords(records)]);
    const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    if (failed) {
      // The insert may or may not have landed: re-read the heads from the table next time.
      for (const t of newHeads.keys()) state.heads.delete(t);
      throw failed.reason;
    }
    for (const [t, h] of newHeads) state.heads.set(t, h);
    return records;
  }

  async function insertRecords(records: readonly DigestRecord[]): Promise<void> {
    await ch.insert({
      table: `${database}.row_digests`,
      format: 'JSONEachRow',
      values: records.map((r) => ({
        tenant: r.tenant,
        chain: r.chain,
        seq: r.seq,
        hour: chTime(r.hour * 1000, false),
        batch_id: r.batch_id,
        recorded_at: chTime(r.recorded_at_ms, true),
        backfill: r.backfill,
        canonical_version: r.canonical_version,
        row_count: r.row_count,
        row_tables: r.row_tables,
        row_ids: r.row_ids,
        row_hashes: r.row_hashes,
        rows_hash: r.rows_hash,
        previous_hash: r.previous_hash,
        digest_hash: r.digest_hash,
        signature: r.signature,
        key_id: r.key_id,
      })),
    });
  }

  return {
    prepare(source) {
      return offload ? computeOffMainThread(source) : Promise.resolve(undefined);
    },
    record(stored, batch = {}) {
      const batchId = batch.batchId || `unnamed:${randomUUID()}`;
      // Serialized per chain: each record must link to the one stored before it.
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
